export * from './nats-transport.js';
export * from './wire-exception.js';
export * from './nats-rpc-client.js';
export * from './typed-rpc.js';
export * from './request-coalescer.js';
export * from './draining-nats-server.js';
export * from './json-text-reply.js';
export * from './batch-reply.js';
