export * from './cdp-auth.js';
export * from './config.js';
export * from './evm-signer.js';
export * from './local-payment-stack.js';
export * from './server.js';
export * from './solana.js';
export * from './x402-facilitator.js';
