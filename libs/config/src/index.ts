export * from './env-reader.js';
export * from './nats.js';
export * from './redis.js';
