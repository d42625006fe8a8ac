export * from './processes.js';
export * from './databases.js';
