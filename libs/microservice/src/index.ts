export * from './nats-transport.js';
export * from './wire-exception.js';
