export * from './heap-growth.js';
export * from './logger.js';
export * from './metrics.js';
export * from './nats-probe.js';
export * from './ops-config.js';
export * from './ops-server.js';
export * from './run-service.js';
export * from './service-ops.js';
