export * from './processes.js';
export * from './databases.js';
export * from './service-processes.js';
export * from './postgres-cluster.js';
