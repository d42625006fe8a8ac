import { X402_EVM_NETWORKS } from '@appcat/contracts';

/** Where USDC lives on a chain and the EIP-712 domain it signs under. */
export interface UsdcDeployment {
  address: `0x${string}`;
  name: string;
  version: string;
}

/**
 * USDC of each EVM network in the one network table (`X402_NETWORKS`, shared/reference/x402-v2.md), and
 * Base Sepolia's: the local chain puts the test token at the same address with the same domain, so
 * requirements built from the real asset table verify unchanged.
 */
export const USDC_BY_CHAIN_ID: Readonly<Record<number, UsdcDeployment>> = {
  ...Object.fromEntries(
    X402_EVM_NETWORKS.map((n) => [
      n.chainId,
      { address: n.asset as `0x${string}`, name: n.assetName ?? '', version: n.assetVersion ?? '' },
    ]),
  ),
  84532: { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', name: 'USDC', version: '2' },
};

export const BASE_CHAIN_ID = 8453;

/** Multicall3's canonical address on every EVM chain. */
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11';
