import type { AppleStoreConfig, UpstreamRateLimit } from '../config.js';

/**
 * Apple's upstreams, as the rate limiter and the circuit breaker know them: iTunes
 * Search/Lookup and the reviews feed (itunes.apple.com), the store pages the web catalogue token is
 * read from (apps.apple.com), the web catalogue (amp-api), the same-origin catalogue (also on
 * apps.apple.com, limited on its own since it answers far more than pages do), and for the store
 * facts the marketing tools' chart feeds and the search hints.
 */
export const ITUNES_UPSTREAM = 'itunes';
export const APPLE_WEB_UPSTREAM = 'apple-web';
export const APPLE_AMP_UPSTREAM = 'apple-amp';
/** The catalogue apps.apple.com reads through its own origin (`/api/apps/v1/catalog/…`). */
export const APPLE_CATALOGUE_UPSTREAM = 'apple-catalogue';
/** The marketing tools' chart feeds (rss.marketingtools.apple.com) and the search hints (search.itunes.apple.com). */
export const MARKETING_RSS_UPSTREAM = 'apple-rss';
export const SEARCH_HINTS_UPSTREAM = 'apple-hints';

/** The host each named source calls (the nine routes' and the store facts'), as the rate limiter and the breaker name it. */
const SOURCE_UPSTREAMS: Readonly<Record<string, string>> = {
  itunes: ITUNES_UPSTREAM,
  feed: ITUNES_UPSTREAM,
  'feed-id-first': ITUNES_UPSTREAM,
  'amp-api': APPLE_AMP_UPSTREAM,
  catalogue: APPLE_CATALOGUE_UPSTREAM,
  page: APPLE_WEB_UPSTREAM,
  'itunes-rss': ITUNES_UPSTREAM,
  'marketing-rss': MARKETING_RSS_UPSTREAM,
  'customer-reviews': ITUNES_UPSTREAM,
  // The rating among the app's facts is read from the facts' own first source.
  'app-facts': APPLE_AMP_UPSTREAM,
  hints: SEARCH_HINTS_UPSTREAM,
};

/** The hosts a route's sources reach, in the order they are tried, each once (the first pays for a refresh). */
export function sourceUpstreams(order: readonly string[]): [string, ...string[]] {
  const [first, ...rest] = [...new Set(order.map((source) => SOURCE_UPSTREAMS[source]))];
  if (first === undefined) throw new Error('a route needs at least one source');
  return [first, ...rest];
}

export function appleRateLimits(config: AppleStoreConfig): Map<string, UpstreamRateLimit> {
  return new Map([
    [ITUNES_UPSTREAM, config.rateLimits.itunes],
    [APPLE_WEB_UPSTREAM, config.rateLimits.web],
    [APPLE_AMP_UPSTREAM, config.rateLimits.ampApi],
    [APPLE_CATALOGUE_UPSTREAM, config.rateLimits.catalogue],
    [MARKETING_RSS_UPSTREAM, config.rateLimits.marketingRss],
    [SEARCH_HINTS_UPSTREAM, config.rateLimits.searchHints],
  ]);
}
