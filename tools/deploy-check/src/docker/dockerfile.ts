/** A Dockerfile as instructions: continuation lines joined, comments and blank lines dropped. */
export interface Instruction {
  keyword: string;
  args: string;
  /** 1-based line of the instruction's first line. */
  line: number;
}

export function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending: { text: string; line: number } | undefined;
  text.split('\n').forEach((raw, index) => {
    const line = raw.replace(/\r$/, '');
    const trimmed = line.trim();
    // Blank lines and comments end nothing, not even inside a continued instruction.
    if (trimmed.startsWith('#') || trimmed === '') return;
    if (trimmed.includes('<<') && /^(RUN|COPY|ADD)\b/i.test(pending ? pending.text : trimmed)) {
      throw new Error(`line ${index + 1}: heredocs are not supported by this parser`);
    }
    const continued = trimmed.endsWith('\\');
    const piece = continued ? trimmed.slice(0, -1).trim() : trimmed;
    pending = pending
      ? { text: `${pending.text} ${piece}`.trim(), line: pending.line }
      : { text: piece, line: index + 1 };
    if (continued) return;
    const match = /^(\S+)\s*(.*)$/.exec(pending.text);
    if (match) instructions.push({ keyword: match[1].toUpperCase(), args: match[2], line: pending.line });
    pending = undefined;
  });
  if (pending) throw new Error('the Dockerfile ends inside a continued line');
  return instructions;
}

export interface CopyInstruction {
  line: number;
  flags: Record<string, string | true>;
  sources: string[];
  destination: string;
}

/** COPY and ADD with their flags, sources and destination (exec or shell form). */
export function copyInstructions(instructions: Instruction[]): CopyInstruction[] {
  return instructions
    .filter((instruction) => instruction.keyword === 'COPY' || instruction.keyword === 'ADD')
    .map((instruction) => {
      const flags: Record<string, string | true> = {};
      let rest = instruction.args;
      for (let flag = /^--([a-z-]+)(?:=(\S+))?\s+/.exec(rest); flag; flag = /^--([a-z-]+)(?:=(\S+))?\s+/.exec(rest)) {
        flags[flag[1]] = flag[2] ?? true;
        rest = rest.slice(flag[0].length);
      }
      const parts: string[] = rest.startsWith('[') ? (JSON.parse(rest) as string[]) : rest.split(/\s+/).filter(Boolean);
      if (parts.length < 2)
        throw new Error(`line ${instruction.line}: ${instruction.keyword} needs a source and a destination`);
      return { line: instruction.line, flags, sources: parts.slice(0, -1), destination: parts.at(-1) as string };
    });
}

export interface Stage {
  name?: string;
  /** The base image with ARG defaults substituted, or the name of an earlier stage. */
  from: string;
  line: number;
  instructions: Instruction[];
}

/** The build stages, FROM by FROM; `${ARG}` in FROM takes the default of an ARG declared before the first FROM. */
export function stages(instructions: Instruction[]): Stage[] {
  const globalArgs: Record<string, string> = {};
  const result: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'ARG' && result.length === 0) {
      const [name, value] = instruction.args.split('=', 2);
      if (value !== undefined) globalArgs[name.trim()] = value.trim().replace(/^"(.*)"$/, '$1');
      continue;
    }
    if (instruction.keyword === 'FROM') {
      const words = instruction.args.split(/\s+/).filter((word) => !word.startsWith('--'));
      const from = words[0].replace(/\$\{?(\w+)\}?/g, (whole, name: string) => globalArgs[name] ?? whole);
      const name = words[1]?.toUpperCase() === 'AS' ? words[2] : undefined;
      result.push({ from, name, line: instruction.line, instructions: [] });
      continue;
    }
    result.at(-1)?.instructions.push(instruction);
  }
  return result;
}
