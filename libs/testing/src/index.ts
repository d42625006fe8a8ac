export * from './processes.js';
export * from './databases.js';
export * from './service-processes.js';
export * from './postgres-cluster.js';
export * from './redis-cluster.js';
export * from './nats-cluster.js';
export * from './fake-clock.js';
export * from './otlp-trace-request.js';
