export * from './accounts.js';
export * from './config.js';
export * from './ledger.js';
export * from './solana-ledger.js';
