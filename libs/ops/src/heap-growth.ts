import { setFlagsFromString } from 'node:v8';

/**
 * Caps how far V8 lets the old generation grow past what the last full collection found alive, as a
 * percentage (30: the next full collection starts when the old generation is 1.3 × the live heap).
 * Left alone, V8 picks the factor itself, up to 4 × when the process allocates fast, which is exactly
 * a service under load: a gateway with 45 MB alive then peaks above 240 MB resident while the floor
 * processes of the benchmark stay near 100 MB. 0 keeps V8's own choice.
 *
 * V8 reads this flag each time it sets the next collection's limit, so setting it at start-up, before
 * the first request, applies to the whole life of the process (unlike the semi-space size, which only
 * the command line or NODE_OPTIONS can set).
 */
export function applyHeapGrowthPercent(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
