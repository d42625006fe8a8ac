export { REFERENCE_IDS } from './catalogue/reference-data.js';
export { readStoreEmulatorConfig, type StoreEmulatorConfig } from './config.js';
export type { CatalogueListing } from './control/catalogue-listing.js';
export type { EndpointStatsSnapshot } from './control/endpoint-stats.js';
export { ENDPOINTS, endpointOf, type Endpoint } from './control/endpoints.js';
export type { ActiveFault, FaultMatch, FaultSpec } from './control/fault-book.js';
export type { RateLimitSettings } from './control/rate-limit.js';
export { type DriftSettings, TODAYS_SHAPES } from './control/drift.js';
export { EmulatorControlClient } from './control/control-client.js';
export type { EmulatorRequest, EmulatorResponse } from './http.js';
export { isItunesLikeUserAgent } from './routes/itunes.js';
export { moduleScriptPath } from './render/store-page.js';
export {
  DEFAULT_SEED,
  startStoreEmulator,
  type RequestFault,
  type RequestHook,
  type StoreEmulator,
  type StoreEmulatorOptions,
} from './server.js';
export { PLAY_REFERENCE } from './google-play/play-catalogue.js';
export { PLAY_BLOCKS, playEmptyReviews } from './google-play/play-faults.js';
export { CATALOG_RATE_LIMITS_LIFTED } from './catalog-settings.js';
