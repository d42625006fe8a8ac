import type { CatalogSource } from '@appcat/contracts';
import { AsyncLocalStorage } from 'node:async_hooks';

/** Where one upstream resource used by a reply came from, and when the upstream produced it. */
interface Part {
  source: CatalogSource;
  fetchedAt: number;
}

export interface Provenance {
  source?: CatalogSource;
  ageSeconds?: number;
}

/** The reply being built: the resources it used, and whether it may use only fresh cache entries. */
interface Trace {
  parts: Part[];
  cacheOnly: boolean;
}

const traces = new AsyncLocalStorage<Trace>();

/** Notes, for the reply being built, one resource it used. Outside {@link traceProvenance} it does nothing. */
export function recordProvenance(source: CatalogSource, fetchedAt: number): void {
  traces.getStore()?.parts.push({ source, fetchedAt });
}

/** True while building a reply that may use only fresh cache entries (`catalog.peek`): nothing may ask the upstream. */
export function cacheOnly(): boolean {
  return traces.getStore()?.cacheOnly ?? false;
}

/** Thrown by the cache when a cache-only reply needs a resource it does not hold fresh. */
export class NotCachedError extends Error {
  constructor(key: string) {
    super(`not cached: ${key}`);
    this.name = 'NotCachedError';
  }
}

/**
 * Runs `work` and says where its data came from. A reply built from several resources (bundle reviews
 * read the bundle and a feed page per member) is `stale` if any part is, `cache` if every part is,
 * otherwise `upstream`; its age is that of its oldest part.
 */
export async function traceProvenance<T>(work: () => Promise<T>, now = Date.now, options: { cacheOnly?: boolean } = {}): Promise<{ result: T; provenance: Provenance }> {
  const used: Part[] = [];
  const result = await traces.run({ parts: used, cacheOnly: options.cacheOnly ?? false }, work);
  if (used.length === 0) return { result, provenance: {} };
  const source: CatalogSource = used.some((p) => p.source === 'stale') ? 'stale' : used.every((p) => p.source === 'cache') ? 'cache' : 'upstream';
  if (source === 'upstream') return { result, provenance: { source } };
  const oldest = Math.min(...used.map((p) => p.fetchedAt));
  return { result, provenance: { source, ageSeconds: Math.max(0, Math.floor((now() - oldest) / 1000)) } };
}
