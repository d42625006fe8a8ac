import { NotCachedError, type ResourceTrace } from './provenance.js';
import type { RefreshJob } from './refresh-queue.js';

/** How long one kind of upstream resource is good for, ms. */
export interface Freshness {
  /** Served from the cache without asking the upstream. */
  freshMs: number;
  /** Same, for a "not found" answer. */
  notFoundMs: number;
  /** Oldest value served (marked stale) when the upstream fails; not-found answers are never served stale. */
  staleMs: number;
}

/** One upstream resource: where it is cached and how to load it. */
export interface ResourceRequest<T> {
  /** Unique per resource, without the deployment prefix, e.g. `itunes:app:us:-:id:284882215`. */
  key: string;
  freshness: Freshness;
  /**
   * Asks the upstream; undefined means the upstream says it does not exist (cached as not found).
   * A resource read through several sources tells `noteSource` which one answered (kept in the entry).
   */
  load(noteSource?: (name: string) => void): Promise<T | undefined>;
  /**
   * How any replica can rebuild this request. With it, an entry past its freshness is served at once,
   * marked stale, and refreshed through the shared queue; without it, it is loaded before answering.
   */
  refresh?: RefreshJob;
}

/**
 * The catalog's access to upstream resources: a cache shared by every replica that merges identical
 * loads in flight. Adapters describe resources; this decides whether the upstream is asked.
 */
export interface ResourceStore {
  /**
   * The resource, noted in `trace` (a resource that is no part of a reply's data passes UNTRACKED).
   * When the trace is cache-only, the upstream is not asked: a resource not held fresh is a
   * {@link NotCachedError}.
   */
  get<T>(request: ResourceRequest<T>, trace: ResourceTrace): Promise<T | undefined>;
  /**
   * Stores values learned on the side, as if each had been loaded now: an app found by bundle id is
   * also the app by track id; every record of a search result is that app's lookup record. `source`
   * names the source they were read from.
   */
  put(freshness: Freshness, entries: Iterable<[key: string, value: unknown]>, source?: string): Promise<void>;
  /** Forgets a resource (a web catalogue token the API has just rejected). */
  drop(key: string): Promise<void>;
}

/** No cache: every request asks the upstream. For adapter tests and tools that want raw behaviour. */
export class UncachedResources implements ResourceStore {
  async get<T>(request: ResourceRequest<T>, trace: ResourceTrace): Promise<T | undefined> {
    if (trace.cacheOnly) throw new NotCachedError(request.key);
    let from: string | undefined;
    const value = await request.load((name) => (from = name));
    trace.record('upstream', Date.now(), 0, from);
    return value;
  }

  async put(): Promise<void> {}

  async drop(): Promise<void> {}
}
