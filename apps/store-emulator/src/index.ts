export { REFERENCE_IDS } from './catalogue/reference-data.js';
export { readStoreEmulatorConfig, type StoreEmulatorConfig } from './config.js';
export type { EmulatorRequest, EmulatorResponse } from './http.js';
export { isItunesLikeUserAgent } from './routes/itunes.js';
export { DEFAULT_SEED, startStoreEmulator, type RequestFault, type RequestHook, type StoreEmulator, type StoreEmulatorOptions } from './server.js';
