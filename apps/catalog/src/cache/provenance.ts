import type { CatalogSource } from '@appcat/contracts';
import type { Context } from '@appcat/ops';

export interface Provenance {
  source?: CatalogSource;
  ageSeconds?: number;
  /** The same age, ms (for the gateway's near cache, which ages the answer on its own clock). */
  ageMs?: number;
  /** How much longer every part stays fresh by the catalog's own rules, ms; absent if some part is not. */
  freshForMs?: number;
  /** The sources that produced the data (`itunes`, `feed`, …), in the order first read, comma-separated. */
  upstreamSource?: string;
}

/**
 * The reply a resource is read for, as the resource store sees it. It is passed explicitly from the
 * controller down to {@link ResourceStore.get}, not held in async context: an AsyncLocalStorage makes
 * Node run promise hooks for every promise in the process.
 */
export interface ResourceTrace {
  /** The reply may use only fresh cache entries (`catalog.peek`): nothing may ask the upstream. */
  readonly cacheOnly: boolean;
  /** With tracing on, the call's trace context: the parent of the spans of its cache reads. */
  readonly callContext?: Context;
  /**
   * Notes one resource the reply used: where it came from, when the upstream produced it, and for how
   * long after that the cache counts it fresh (0 or absent: not at all, e.g. a stale copy), and the
   * store's source that produced it, when known.
   */
  record(source: CatalogSource, fetchedAt: number, freshMs?: number, upstreamSource?: string): void;
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
  private freshUntil = Infinity;
  private shortestFreshMs = Infinity;
  private upstreamSources: string | undefined;

  constructor(
    readonly cacheOnly = false,
    readonly callContext?: Context,
  ) {}

  record(source: CatalogSource, fetchedAt: number, freshMs = 0, upstreamSource?: string): void {
    this.parts++;
    if (upstreamSource !== undefined && upstreamSource !== this.upstreamSources) {
      if (this.upstreamSources === undefined) this.upstreamSources = upstreamSource;
      else if (!this.upstreamSources.split(', ').includes(upstreamSource))
        this.upstreamSources += `, ${upstreamSource}`;
    }
    const until = source === 'stale' || freshMs <= 0 ? -Infinity : fetchedAt + freshMs;
    if (until < this.freshUntil) this.freshUntil = until;
    if (freshMs < this.shortestFreshMs) this.shortestFreshMs = freshMs;
    if (source === 'stale') this.anyStale = true;
    else if (source !== 'cache') this.allCache = false;
    if (fetchedAt < this.oldestFetchedAt) this.oldestFetchedAt = fetchedAt;
  }

  /** Nothing when no resource was noted; no age for `upstream`. */
  provenance(now = Date.now()): Provenance {
    if (this.parts === 0) return {};
    const source: CatalogSource = this.anyStale ? 'stale' : this.allCache ? 'cache' : 'upstream';
    const ageMs = Math.max(0, now - this.oldestFetchedAt);
    // Never fresh for longer than its shortest TTL, even if a replica's clock put a fetch in the future.
    const fresh =
      this.freshUntil > now ? { ageMs, freshForMs: Math.min(this.freshUntil - now, this.shortestFreshMs) } : {};
    const from = this.upstreamSources === undefined ? {} : { upstreamSource: this.upstreamSources };
    if (source === 'upstream') return { source, ...fresh, ...from };
    return { source, ageSeconds: Math.floor(ageMs / 1000), ...fresh, ...from };
  }
}
