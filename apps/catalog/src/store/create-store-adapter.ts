import { AppleStoreAdapter } from '../apple/apple-store-adapter.js';
import { appleRateLimits } from '../apple/apple-upstreams.js';
import type { ResourceStore } from '../cache/resource-store.js';
import type { CatalogConfig, UpstreamRateLimit } from '../config.js';
import { GooglePlayStoreAdapter } from '../google-play/google-play-store-adapter.js';
import { playRateLimits } from '../google-play/play-upstream.js';
import type { SourceObserver } from '../upstream/source-chain.js';
import type { UpstreamHttpClient } from '../upstream/upstream-http-client.js';
import type { StoreAdapter } from './store-adapter.js';

/**
 * The adapter for the configured store (CATALOG_STORE), on the shared cache and the guarded client;
 * `onSource` is told about every upstream source a route tried (the catalog's metric).
 */
export function createStoreAdapter(
  config: CatalogConfig,
  http: UpstreamHttpClient,
  store: ResourceStore,
  onSource?: SourceObserver,
): StoreAdapter {
  switch (config.store) {
    case 'apple':
      return new AppleStoreAdapter(config.apple, http, {
        store,
        ttl: config.cache.ttl,
        batch: { windowMs: config.cache.batchWindowMs, maxIds: config.cache.batchMaxIds },
        onSource,
      });
    case 'google-play':
      return new GooglePlayStoreAdapter(config.googlePlay, http, { store, ttl: config.cache.ttl });
  }
}

/** Rate limits of the configured store's upstream hosts, by the names its adapter gives requests. */
export function upstreamRateLimits(config: CatalogConfig): Map<string, UpstreamRateLimit> {
  switch (config.store) {
    case 'apple':
      return appleRateLimits(config.apple);
    case 'google-play':
      return playRateLimits(config.googlePlay);
  }
}
