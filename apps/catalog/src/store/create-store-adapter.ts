import { AppleStoreAdapter } from '../apple/apple-store-adapter.js';
import type { CatalogConfig } from '../config.js';
import type { UpstreamHttpClient } from '../upstream/upstream-http-client.js';
import type { StoreAdapter } from './store-adapter.js';

/** The adapter for the configured store (CATALOG_STORE). */
export function createStoreAdapter(config: CatalogConfig, http: UpstreamHttpClient): StoreAdapter {
  switch (config.store) {
    case 'apple':
      return new AppleStoreAdapter(config.apple, http);
  }
}
