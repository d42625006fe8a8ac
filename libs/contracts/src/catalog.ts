import type { ErrorCode } from './errors.js';
/**
 * What the gateway asks of the catalog: one validated, normalised query per priced route. The gateway
 * has already applied defaults (country "us", page 1, sort "recent"), lower-cased country and lang,
 * and checked every format, so the catalog can build upstream URLs without re-validating.
 */
export type ReviewSort = 'recent' | 'helpful';

/** The App Store's three top charts, as the gateway names them. */
export const CHART_KINDS = ['top-free', 'top-paid', 'top-grossing'] as const;
export type ChartKind = (typeof CHART_KINDS)[number];

export type CatalogQuery =
  | { route: 'apps.search'; term: string; page: number; country: string; lang?: string }
  | { route: 'apps.get'; appId: string; country: string; lang?: string }
  /** `lang` on stores whose reviews are asked in a language (Google Play); Apple's route takes none. */
  | { route: 'apps.reviews'; appId: string; page: number; country: string; sort: ReviewSort; lang?: string }
  | { route: 'apps.similar'; appId: string; country: string; lang?: string }
  | { route: 'bundles.search'; term: string; page: number; country: string; lang?: string }
  | { route: 'bundles.get'; bundleId: string; country: string; lang?: string }
  | { route: 'bundles.reviews'; bundleId: string; page: number; country: string; sort: ReviewSort }
  | { route: 'bundles.similar'; bundleId: string; country: string; lang?: string }
  /** `country` on stores whose developer pages differ per country (Google Play); Apple's route takes none. */
  | { route: 'developers.get'; developerId: string; country?: string }
  | { route: 'apps.ratings'; appId: string; country: string }
  | { route: 'apps.privacy'; appId: string; country: string; lang?: string }
  | { route: 'apps.versions'; appId: string; country: string; lang?: string }
  | { route: 'charts.get'; chart: ChartKind; country: string; genre?: string; page: number }
  | { route: 'suggestions.search'; term: string; country: string };

export type RouteId = CatalogQuery['route'];

export interface CatalogRequest {
  query: CatalogQuery;
  requestId: string;
}

/** Where an answer came from: the upstream just now, a fresh cache entry, or a stale one served because the upstream failed. */
export type CatalogSource = 'upstream' | 'cache' | 'stale';

export interface CatalogReply {
  /**
   * The upstream payload as JSON text, written into the envelope's `data` as it is: the catalog builds
   * it from the cached entries' own text and the gateway never decodes and re-encodes it.
   */
  dataJson: string;
  /** Absent means 'upstream'. The gateway reports it in the `x-cache` header. */
  source?: CatalogSource;
  /** Seconds since the upstream produced `data` (for cache and stale answers). */
  ageSeconds?: number;
  /**
   * Milliseconds since the upstream produced `data`, and how much longer the catalog's cache counts it
   * fresh; both absent when it does not (a stale answer). The gateway's near cache keeps an answer no
   * longer than that, and reports its age from the same fetch time.
   */
  ageMs?: number;
  freshForMs?: number;
  /**
   * The store's sources that produced `data` (`itunes`, `catalogue`, `amp-api`, `feed`, `page`, …),
   * comma-separated, also on cache hits; the gateway reports it in the `x-upstream-source` header.
   */
  upstreamSource?: string;
}

/**
 * A miss the catalog knows cannot be filled now: the upstream host the query needs is unavailable
 * (its circuit breaker is open, or its rate budget is spent) and no copy is held, fresh or stale.
 */
export interface CatalogUnavailable {
  unavailable: {
    /** The upstream error code a fetch would fail with now. */
    code: ErrorCode;
    /** Names the upstream and the cause, as the fetch's error would. */
    message: string;
    /** When to try again: the breaker's remaining open time, or when the budget refills. */
    retryAfterSeconds: number;
  };
}

/**
 * What `catalog.peek` answers: the cached answer; or, on a miss, what is known about the upstream:
 * {@link CatalogUnavailable} when the call cannot be delivered now, null when a fetch may succeed.
 */
export type CatalogPeekReply = CatalogReply | CatalogUnavailable | null;

export function isCatalogUnavailable(reply: CatalogPeekReply): reply is CatalogUnavailable {
  return reply !== null && 'unavailable' in reply;
}

/** Results per page of the two search routes; the upstream returns at most 200 results. */
export const SEARCH_PAGE_SIZE = 20;
export const SEARCH_MAX_PAGE = 10;
/** Reviews come in 10 pages of 50 (Apple's feed; Google Play's continuations asked 50 at a time). */
export const REVIEWS_MAX_PAGE = 10;
export const REVIEWS_PAGE_SIZE = 50;
/** A top chart holds up to 200 apps (the iTunes chart feed's most), served 20 a page. */
export const CHART_PAGE_SIZE = 20;
export const CHART_MAX_PAGE = 10;

/**
 * The identity of a catalog request: the route and its normalised parameters, in a fixed order. Two
 * queries with the same key get the same answer from the catalog, so the gateway's near cache keys by it.
 */
export function catalogQueryKey(query: CatalogQuery): string {
  const fields = query as unknown as Record<string, string | number | undefined>;
  let key = query.route;
  for (const name of Object.keys(fields).sort()) {
    const value = fields[name];
    if (name !== 'route' && value !== undefined) key += `|${name}=${value}`;
  }
  return key;
}
