/** What a bench run does and for how long, read from the environment. */
export interface BenchSettings {
  /** Seconds each measured run of one target lasts. */
  seconds: number;
  /** Interleaved rounds per comparison. */
  rounds: number;
  /** Seconds of unmeasured load before each measured run. */
  warmupSeconds: number;
  /**
   * Seconds of unmeasured load on each credit-path target before its first round. A freshly started
   * process spends its first tens of seconds under load compiling its hot paths and growing its heap;
   * without this, round 1 measured that instead of the steady state the other rounds see.
   */
  firstWarmupSeconds: number;
  /** HTTP connections of the credit-path runs. */
  connections: number;
  /** Paid x402 calls per server per round (sequential, pre-signed). */
  x402Calls: number;
  /** Unmeasured paid calls per server before the first x402 round: the x402 code paths run hot, not interpreted. */
  x402WarmupCalls: number;
  /** Requests in flight in the catalog scale-out runs. */
  scaleConcurrency: number;
  /** Upstream latency the store emulator adds in the scale-out runs, ms. */
  upstreamLatencyMs: number;
  /** Sections to run, in order. */
  sections: Section[];
  /** Where the report goes; empty: print only. */
  output: string;
  /** Extra `node` flags for our three services (heap limits, say), to measure what they trade; none by default. */
  serviceNodeArgs: string[];
}

export const SECTIONS = ['credits', 'x402', 'tracing', 'scale', 'upstream', 'cluster'] as const;
export type Section = (typeof SECTIONS)[number];

type Env = Record<string, string | undefined>;

function number(env: Env, name: string, fallback: number, min: number, problems: string[]): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) {
    problems.push(`${name} must be a number of at least ${min}, got "${raw}"`);
    return fallback;
  }
  return value;
}

/**
 * Reads BENCH_* settings; throws one error listing every bad value. Defaults make a full run of a
 * few minutes; BENCH_SECONDS=2 BENCH_ROUNDS=1 BENCH_FIRST_WARMUP_SECONDS=0 BENCH_X402_WARMUP_CALLS=3 is a
 * quick check that everything works.
 */
export function readBenchSettings(env: Env, defaultOutput: string): BenchSettings {
  const problems: string[] = [];
  const sections = (env.BENCH_SECTIONS ?? SECTIONS.join(','))
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const section of sections)
    if (!(SECTIONS as readonly string[]).includes(section))
      problems.push(`BENCH_SECTIONS: unknown section "${section}" (known: ${SECTIONS.join(', ')})`);
  const settings: BenchSettings = {
    seconds: number(env, 'BENCH_SECONDS', 10, 1, problems),
    rounds: Math.round(number(env, 'BENCH_ROUNDS', 3, 1, problems)),
    warmupSeconds: number(env, 'BENCH_WARMUP_SECONDS', 2, 0, problems),
    firstWarmupSeconds: number(env, 'BENCH_FIRST_WARMUP_SECONDS', 20, 0, problems),
    connections: Math.round(number(env, 'BENCH_CONNECTIONS', 64, 1, problems)),
    x402Calls: Math.round(number(env, 'BENCH_X402_CALLS', 100, 1, problems)),
    x402WarmupCalls: Math.round(number(env, 'BENCH_X402_WARMUP_CALLS', 50, 1, problems)),
    scaleConcurrency: Math.round(number(env, 'BENCH_SCALE_CONCURRENCY', 256, 1, problems)),
    upstreamLatencyMs: number(env, 'BENCH_SCALE_LATENCY_MS', 50, 0, problems),
    sections: sections as Section[],
    output: env.BENCH_OUTPUT ?? defaultOutput,
    serviceNodeArgs: (env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter((arg) => arg !== ''),
  };
  if (problems.length > 0) throw new Error(`bad bench settings:\n  ${problems.join('\n  ')}`);
  return settings;
}
