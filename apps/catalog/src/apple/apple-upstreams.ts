import type { AppleStoreConfig, UpstreamRateLimit } from '../config.js';

/**
 * Apple's three upstream hosts, as the rate limiter and the circuit breaker know them: iTunes
 * Search/Lookup and the reviews feed (itunes.apple.com), the store pages the web catalogue token is
 * read from (apps.apple.com), the web catalogue (amp-api).
 */
export const ITUNES_UPSTREAM = 'itunes';
export const APPLE_WEB_UPSTREAM = 'apple-web';
export const APPLE_AMP_UPSTREAM = 'apple-amp';

/** The upstream each kind of cached resource (`apple:<kind>:…`, apple-resources.ts) is loaded from. */
const RESOURCE_UPSTREAMS: Readonly<Record<string, string>> = {
  search: ITUNES_UPSTREAM,
  app: ITUNES_UPSTREAM,
  developer: ITUNES_UPSTREAM,
  reviews: ITUNES_UPSTREAM,
  similar: APPLE_AMP_UPSTREAM,
  bundle: APPLE_AMP_UPSTREAM,
  'bundle-search': APPLE_AMP_UPSTREAM,
};

export function appleUpstreamOf(resourceKey: string): string | undefined {
  const [store, kind] = resourceKey.split(':', 2);
  return store === 'apple' ? RESOURCE_UPSTREAMS[kind] : undefined;
}

export function appleRateLimits(config: AppleStoreConfig): Map<string, UpstreamRateLimit> {
  return new Map([
    [ITUNES_UPSTREAM, config.rateLimits.itunes],
    [APPLE_WEB_UPSTREAM, config.rateLimits.web],
    [APPLE_AMP_UPSTREAM, config.rateLimits.ampApi],
  ]);
}
