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
