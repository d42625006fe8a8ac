/** Where USDC lives on a chain and the EIP-712 domain it signs under. */
export interface UsdcDeployment {
  address: `0x${string}`;
  name: string;
  version: string;
}

/**
 * Mainnet (and Base Sepolia) USDC, as in the x402 v2 reference (shared/reference/x402-v2.md): the local chain puts the test
 * token at the same address with the same domain, so requirements built from the real asset table
 * verify unchanged.
 */
export const USDC_BY_CHAIN_ID: Readonly<Record<number, UsdcDeployment>> = {
  8453: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', name: 'USD Coin', version: '2' },
  143: { address: '0x754704Bc059F8C67012fEd69BC8A327a5aafb603', name: 'USDC', version: '2' },
  137: { address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', name: 'USD Coin', version: '2' },
  42161: { address: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831', name: 'USD Coin', version: '2' },
  84532: { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', name: 'USDC', version: '2' },
};

export const BASE_CHAIN_ID = 8453;

/** Multicall3's canonical address on every EVM chain. */
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11';
