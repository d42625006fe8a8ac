/** Pure statistics for benchmark rounds: medians, percentiles, ratios. */

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Nearest-rank percentile (p in 0..100) of values in any order. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** a ÷ b, NaN when b is zero or either side is not a number. */
export function ratio(a: number, b: number): number {
  return Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : Number.NaN;
}

/** The spread of rounds as (max − min) ÷ median: how much to trust a median. */
export function spread(values: readonly number[]): number {
  if (values.length < 2) return 0;
  return ratio(Math.max(...values) - Math.min(...values), median(values));
}

/** One measured round of one target. */
export interface RoundFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

export interface TargetSummary {
  rounds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** Spread of req/s across rounds. */
  spread: number;
}

/** Medians of each figure over the rounds (each figure on its own), errors summed. */
export function summarise(rounds: readonly RoundFigures[]): TargetSummary {
  return {
    rounds: rounds.length,
    requestsPerSecond: median(rounds.map((r) => r.requestsPerSecond)),
    p50Ms: median(rounds.map((r) => r.p50Ms)),
    p99Ms: median(rounds.map((r) => r.p99Ms)),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    spread: spread(rounds.map((r) => r.requestsPerSecond)),
  };
}

/**
 * Rounds in interleaved order: every target once per round, in the same order each round
 * (A B C, A B C, ...), so slow drift in the machine's load hits every target alike.
 */
export function interleave<T>(targets: readonly T[], rounds: number): { round: number; target: T }[] {
  const order: { round: number; target: T }[] = [];
  for (let round = 0; round < rounds; round++) for (const target of targets) order.push({ round, target });
  return order;
}
