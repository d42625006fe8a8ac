export * from './abi.js';
export * from './accounts.js';
export * from './anvil-binary.js';
export type { AnvilExit } from './anvil-process.js';
export * from './local-chain.js';
export * from './local-chains.js';
export * from './usdc-deployments.js';
