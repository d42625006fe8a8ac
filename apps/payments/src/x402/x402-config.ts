import type { EnvReader } from '@appcat/config';

/**
 * The networks x402 payments can arrive on, with mainnet defaults (see shared/reference/x402-v2.md).
 * `set` says which offers list it: 'standard' networks are on every offer, 'extended' ones only on
 * offers for the extended set (the developers route). The order here is the order clients see.
 */
export interface X402Network {
  /** Short name used in settings: X402_<NAME>_PAY_TO etc. */
  name: 'base' | 'monad' | 'solana' | 'polygon' | 'arbitrum';
  /** CAIP-2 id. */
  network: string;
  kind: 'evm' | 'svm';
  set: 'standard' | 'extended';
  /** USDC contract address or mint. */
  asset: string;
  /** EIP-712 domain of the token (EVM only). */
  assetName?: string;
  assetVersion?: string;
  /** Receiver; a network without one is not offered. */
  payTo?: string;
}

export interface X402Config {
  facilitatorUrl: string;
  /** Sent as `Authorization: Bearer …` to the facilitator when set. */
  facilitatorAuthToken?: string;
  facilitatorTimeoutMs: number;
  /** How long a signed authorization stays valid, seconds. */
  maxTimeoutSeconds: number;
  /** Networks with a payTo, in offer order. */
  networks: X402Network[];
}

/** anvil's third default account: the local dev payTo, never to be used with a real facilitator. */
export const LOCAL_DEV_PAY_TO = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
/** The local Solana ledger's published payTo (@appcat/solana-ledger): never to be used with a real facilitator. */
export const SOLANA_LOCAL_DEV_PAY_TO = '3YQzpW2SNGU13XRrDjbahJPGv8ttJTWyqEuH55hmh2ad';

/** The networks offered on the local stack without any setting, and the local receiver each one uses. */
const LOCAL_DEV_PAY_TOS: Partial<Record<X402Network['name'], string>> = {
  base: LOCAL_DEV_PAY_TO,
  solana: SOLANA_LOCAL_DEV_PAY_TO,
};

const MAINNET: readonly Omit<X402Network, 'payTo'>[] = [
  { name: 'base', network: 'eip155:8453', kind: 'evm', set: 'standard', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', assetName: 'USD Coin', assetVersion: '2' },
  { name: 'monad', network: 'eip155:143', kind: 'evm', set: 'standard', asset: '0x754704Bc059F8C67012fEd69BC8A327a5aafb603', assetName: 'USDC', assetVersion: '2' },
  { name: 'solana', network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', kind: 'svm', set: 'standard', asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' },
  { name: 'polygon', network: 'eip155:137', kind: 'evm', set: 'extended', asset: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', assetName: 'USD Coin', assetVersion: '2' },
  { name: 'arbitrum', network: 'eip155:42161', kind: 'evm', set: 'extended', asset: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831', assetName: 'USD Coin', assetVersion: '2' },
];

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

export function readX402Config(env: EnvReader): X402Config {
  const facilitatorUrl = env.url('X402_FACILITATOR_URL', 'http://127.0.0.1:4020');
  const localFacilitator = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(facilitatorUrl);
  const networks: X402Network[] = [];
  for (const defaults of MAINNET) {
    const prefix = `X402_${defaults.name.toUpperCase()}`;
    // "none" turns off a network (Base and Solana have local defaults to turn off).
    const configured = env.optionalString(`${prefix}_PAY_TO`);
    const localPayTo = LOCAL_DEV_PAY_TOS[defaults.name];
    const payTo = configured === 'none' ? undefined : (configured ?? localPayTo);
    const network: X402Network = {
      ...defaults,
      network: env.string(`${prefix}_NETWORK`, defaults.network),
      asset: env.string(`${prefix}_ASSET`, defaults.asset),
      assetName: defaults.kind === 'evm' ? env.string(`${prefix}_ASSET_NAME`, defaults.assetName ?? '') : undefined,
      assetVersion: defaults.kind === 'evm' ? env.string(`${prefix}_ASSET_VERSION`, defaults.assetVersion ?? '') : undefined,
      payTo,
    };
    if (payTo === undefined) continue;
    const pattern = defaults.kind === 'evm' ? EVM_ADDRESS : SOLANA_ADDRESS;
    if (!pattern.test(payTo)) env.fail(`${prefix}_PAY_TO must be a ${defaults.kind === 'evm' ? '0x EVM' : 'Solana'} address, got ${JSON.stringify(payTo)}`);
    if (!pattern.test(network.asset)) env.fail(`${prefix}_ASSET must be a ${defaults.kind === 'evm' ? '0x EVM' : 'Solana'} address`);
    if (payTo === localPayTo && !localFacilitator) {
      env.fail(`${prefix}_PAY_TO is the local development address while X402_FACILITATOR_URL is not local: set a payTo you own`);
    }
    networks.push(network);
  }
  if (!networks.some((n) => n.set === 'standard')) {
    env.fail('x402: no network of the standard set (base, monad, solana) has a payTo: the priced routes would accept no payment');
  }
  const token = env.optionalString('X402_FACILITATOR_AUTH_TOKEN');
  return {
    facilitatorUrl,
    facilitatorAuthToken: token,
    facilitatorTimeoutMs: env.int('X402_FACILITATOR_TIMEOUT_MS', 15_000, { min: 100, max: 120_000 }),
    maxTimeoutSeconds: env.int('X402_MAX_TIMEOUT_SECONDS', 300, { min: 10, max: 3600 }),
    networks,
  };
}
