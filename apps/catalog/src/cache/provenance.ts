import type { CatalogSource } from '@appcat/contracts';

export interface Provenance {
  source?: CatalogSource;
  ageSeconds?: number;
}

/**
 * The reply a resource is read for, as the resource store sees it. It is passed explicitly from the
 * controller down to {@link ResourceStore.get}, not held in async context: an AsyncLocalStorage makes
 * Node run promise hooks for every promise in the process.
 */
export interface ResourceTrace {
  /** The reply may use only fresh cache entries (`catalog.peek`): nothing may ask the upstream. */
  readonly cacheOnly: boolean;
  /** Notes one resource the reply used: where it came from, and when the upstream produced it. */
  record(source: CatalogSource, fetchedAt: number): void;
}

/** For a resource that is no part of a reply's data (the web catalogue token): nothing is noted, and the upstream may be asked. */
export const UNTRACKED: ResourceTrace = Object.freeze({ cacheOnly: false, record: () => undefined });

/** Thrown by the cache when a cache-only reply needs a resource it does not hold fresh. */
export class NotCachedError extends Error {
  constructor(
    readonly key: string,
    /** A stale copy is held: a fetch would serve it if the upstream failed. */
    readonly staleHeld = false,
  ) {
    super(`not cached: ${key}`);
    this.name = 'NotCachedError';
  }
}

/**
 * Where one reply's data came from. A reply built from several resources (bundle reviews read the
 * bundle and a feed page per member) is `stale` if any part is, `cache` if every part is, otherwise
 * `upstream`; its age is that of its oldest part. Only that summary is kept, not the parts.
 */
export class ProvenanceTrace implements ResourceTrace {
  private parts = 0;
  private anyStale = false;
  private allCache = true;
  private oldestFetchedAt = Infinity;

  constructor(readonly cacheOnly = false) {}

  record(source: CatalogSource, fetchedAt: number): void {
    this.parts++;
    if (source === 'stale') this.anyStale = true;
    else if (source !== 'cache') this.allCache = false;
    if (fetchedAt < this.oldestFetchedAt) this.oldestFetchedAt = fetchedAt;
  }

  /** Nothing when no resource was noted; no age for `upstream`. */
  provenance(now = Date.now()): Provenance {
    if (this.parts === 0) return {};
    const source: CatalogSource = this.anyStale ? 'stale' : this.allCache ? 'cache' : 'upstream';
    if (source === 'upstream') return { source };
    return { source, ageSeconds: Math.max(0, Math.floor((now - this.oldestFetchedAt) / 1000)) };
  }
}
