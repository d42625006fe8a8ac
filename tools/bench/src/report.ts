import type { BenchSettings } from './settings.js';
import { formatMachine, type MachineDescription } from './machine.js';
import { markdownTable, megabytes, verdict } from './table.js';

/** One of the issue's targets, with what was measured against it. */
export interface TargetCheck {
  name: string;
  target: string;
  measured: string;
  met: boolean | undefined;
}

/** Resident size of one process: at rest after start-up, and its peak under load. */
export interface MemoryFigure {
  idleBytes?: number;
  peakBytes?: number;
}

/** What the sections found, rendered as the markdown of docs/benchmarks.md (and printed). */
export class Report {
  readonly sections: { title: string; body: string }[] = [];
  readonly targets: TargetCheck[] = [];
  readonly memory = new Map<string, MemoryFigure>();

  /** @param deployedNodeArgs, deployedEnvironment the node options and environment our services are deployed with, named in the report. */
  constructor(
    private readonly deployedNodeArgs: string[] = [],
    private readonly deployedEnvironment: Record<string, string> = {},
  ) {}

  private describeNodeArgs(added: string[]): string {
    const args = [...this.deployedNodeArgs, ...added];
    const environment = Object.entries(this.deployedEnvironment).map(([name, value]) => `${name}=${value}`);
    const words = [...environment, 'node', ...args];
    const command = words.length > 1 ? `\`${words.join(' ')}\`` : 'plain `node`';
    return `our services ran as deployed, with ${command}${added.length > 0 ? ` (\`${added.join(' ')}\` added by BENCH_NODE_ARGS)` : ''}`;
  }

  add(title: string, body: string): void {
    this.sections.push({ title, body });
  }

  check(target: TargetCheck): void {
    this.targets.push(target);
  }

  idle(name: string, bytes: number | undefined): void {
    this.memory.set(name, { ...this.memory.get(name), idleBytes: bytes });
  }

  peak(name: string, bytes: number | undefined): void {
    if (bytes === undefined) return;
    const figure = this.memory.get(name) ?? {};
    this.memory.set(name, { ...figure, peakBytes: Math.max(figure.peakBytes ?? 0, bytes) });
  }

  memoryTable(): string {
    const rows = [...this.memory].map(([name, m]) => [
      name,
      m.idleBytes === undefined ? '–' : megabytes(m.idleBytes),
      m.peakBytes === undefined ? '–' : megabytes(m.peakBytes),
    ]);
    return markdownTable(['process', 'idle RSS', 'peak RSS under load'], rows);
  }

  targetsTable(): string {
    return markdownTable(
      ['target', 'wanted', 'measured', 'verdict'],
      this.targets.map((t) => [t.name, t.target, t.measured, verdict(t.met)]),
      ['left', 'left', 'left', 'left'],
    );
  }

  /** @param notes hand-written markdown appended as is (the findings that profiles and runs led to). */
  render(machine: MachineDescription, settings: BenchSettings, conditions: string, notes = ''): string {
    const parts = [
      '# Benchmarks',
      '',
      'Written by `npm run bench` (tools/bench); every figure below comes from one run on one machine, each comparison measured side by side in interleaved rounds. Medians over the rounds; ratios are of those medians. Absolute figures depend on the machine and what else runs on it: read the ratios.',
      '',
      `- **Machine:** ${formatMachine(machine)}`,
      `- **Run:** ${settings.rounds} rounds × ${settings.seconds} s per target (after ${settings.warmupSeconds} s warm-up; each credit-path target first warmed for ${settings.firstWarmupSeconds} s), ${settings.connections} connections, ${settings.x402Calls} x402 calls per server per round; sections: ${settings.sections.join(', ')}; ${this.describeNodeArgs(settings.serviceNodeArgs)}`,
      `- **Load conditions:** ${conditions}`,
      '',
      ...(this.targets.length > 0 ? ['## Targets', '', this.targetsTable(), ''] : []),
      ...this.sections.flatMap((s) => [`## ${s.title}`, '', s.body, '']),
    ];
    if (this.memory.size > 0)
      parts.push(
        '## Memory',
        '',
        'Resident set size (VmRSS from /proc/<pid>/status): idle after start-up and warm-up, peak sampled every 250 ms under load.',
        '',
        this.memoryTable(),
        '',
      );
    if (notes.trim() !== '') parts.push(notes.trim(), '');
    return parts.join('\n');
  }
}
