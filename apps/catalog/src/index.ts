export { AppleStoreAdapter } from './apple/apple-store-adapter.js';
export { NotCachedError, type Provenance, ProvenanceTrace, type ResourceTrace, UNTRACKED } from './cache/provenance.js';
export { chooseRefreshes } from './cache/refresh-drainer.js';
export { guaranteedRefreshIntervals } from './cache/refresh-worker.js';
export { type Freshness, type ResourceRequest, type ResourceStore, UncachedResources } from './cache/resource-store.js';
export { createCatalogApp } from './catalog-app.js';
export {
  readCatalogConfig,
  type AppleStoreConfig,
  type CatalogConfig,
  type CatalogStore,
  type UpstreamRateLimit,
  type Egress,
} from './config.js';
export { fetchFromStore, type ListData, type Review, type StoreAdapter } from './store/store-adapter.js';
export {
  FetchUpstreamHttpClient,
  type UpstreamHttpClient,
  type UpstreamRequest,
  type UpstreamResponse,
} from './upstream/upstream-http-client.js';
