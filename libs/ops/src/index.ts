export * from './heap-growth.js';
export * from './logger.js';
export * from './metrics.js';
export * from './ops-config.js';
export * from './ops-server.js';
