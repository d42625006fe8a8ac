import type { EnvReader } from '@appcat/config';
import { X402_NETWORKS, type X402NetworkFacts } from '@appcat/contracts';

/**
 * A network x402 payments can arrive on, as configured: the facts of the one network table
 * (`X402_NETWORKS` in @appcat/contracts: order, CAIP-2 id, USDC, standard or extended set) with the
 * settings' overrides, and the receiver.
 */
export interface X402Network extends X402NetworkFacts {
  /** Receiver; a network without one is not offered. */
  payTo?: string;
}

/** Coinbase's CDP facilitator (mainnet Base, Solana…), as @coinbase/x402's createFacilitatorConfig names it. */
export const CDP_FACILITATOR_URL = 'https://api.cdp.coinbase.com/platform/v2/x402';

export interface X402Config {
  /** `url`: a facilitator at X402_FACILITATOR_URL, with an optional static bearer token; `cdp`: Coinbase's CDP facilitator, each request signed with a CDP API key JWT. */
  facilitator: 'url' | 'cdp';
  facilitatorUrl: string;
  /** Sent as `Authorization: Bearer …` to the facilitator when set (`url` only). */
  facilitatorAuthToken?: string;
  /** The CDP API key that signs each request's JWT (`cdp` only). */
  cdpApiKey?: { id: string; secret: string };
  facilitatorTimeoutMs: number;
  /** How long a signed authorization stays valid, seconds. */
  maxTimeoutSeconds: number;
  /** Networks with a payTo, in offer order. */
  networks: X402Network[];
}

/** anvil's third default account: the local dev payTo on every local EVM chain, never to be used with a real facilitator. */
export const LOCAL_DEV_PAY_TO = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
/** The local Solana ledger's published payTo (@appcat/solana-ledger): never to be used with a real facilitator. */
export const SOLANA_LOCAL_DEV_PAY_TO = '3YQzpW2SNGU13XRrDjbahJPGv8ttJTWyqEuH55hmh2ad';

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

export function readX402Config(env: EnvReader): X402Config {
  const facilitator = env.oneOf<'url' | 'cdp'>('X402_FACILITATOR', 'url', ['url', 'cdp']);
  const facilitatorUrl = env.url(
    'X402_FACILITATOR_URL',
    facilitator === 'cdp' ? CDP_FACILITATOR_URL : 'http://127.0.0.1:4020',
  );
  const localFacilitator = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(facilitatorUrl);
  const networks: X402Network[] = [];
  for (const defaults of X402_NETWORKS) {
    const prefix = `X402_${defaults.name.toUpperCase()}`;
    // "none" turns off a network (every network has a local default to turn off).
    const configured = env.optionalString(`${prefix}_PAY_TO`);
    const localPayTo = defaults.kind === 'evm' ? LOCAL_DEV_PAY_TO : SOLANA_LOCAL_DEV_PAY_TO;
    const payTo = configured === 'none' ? undefined : (configured ?? localPayTo);
    const network: X402Network = {
      ...defaults,
      network: env.string(`${prefix}_NETWORK`, defaults.network),
      asset: env.string(`${prefix}_ASSET`, defaults.asset),
      assetName: defaults.kind === 'evm' ? env.string(`${prefix}_ASSET_NAME`, defaults.assetName ?? '') : undefined,
      assetVersion:
        defaults.kind === 'evm' ? env.string(`${prefix}_ASSET_VERSION`, defaults.assetVersion ?? '') : undefined,
      payTo,
    };
    if (payTo === undefined) continue;
    const pattern = defaults.kind === 'evm' ? EVM_ADDRESS : SOLANA_ADDRESS;
    if (!pattern.test(payTo))
      env.fail(
        `${prefix}_PAY_TO must be a ${defaults.kind === 'evm' ? '0x EVM' : 'Solana'} address, got ${JSON.stringify(payTo)}`,
      );
    if (!pattern.test(network.asset))
      env.fail(`${prefix}_ASSET must be a ${defaults.kind === 'evm' ? '0x EVM' : 'Solana'} address`);
    if (payTo === localPayTo && !localFacilitator) {
      env.fail(
        `${prefix}_PAY_TO is the local development address while X402_FACILITATOR_URL is not local: set a payTo you own`,
      );
    }
    networks.push(network);
  }
  if (!networks.some((n) => n.set === 'standard')) {
    env.fail(
      'x402: no network of the standard set (base, monad, solana) has a payTo: the priced routes would accept no payment',
    );
  }
  const token = env.optionalString('X402_FACILITATOR_AUTH_TOKEN');
  const cdpKeyId = env.optionalString('CDP_API_KEY_ID');
  const cdpKeySecret = env.optionalString('CDP_API_KEY_SECRET');
  if (facilitator === 'cdp') {
    if (!cdpKeyId || !cdpKeySecret)
      env.fail(
        'X402_FACILITATOR=cdp needs CDP_API_KEY_ID and CDP_API_KEY_SECRET (the CDP API key that signs each request)',
      );
    if (token !== undefined)
      env.fail(
        'X402_FACILITATOR_AUTH_TOKEN is for a url facilitator; CDP requests are signed with CDP_API_KEY_ID/CDP_API_KEY_SECRET',
      );
  } else if (cdpKeyId !== undefined || cdpKeySecret !== undefined) {
    env.fail('CDP_API_KEY_ID/CDP_API_KEY_SECRET are set but X402_FACILITATOR is not cdp');
  }
  return {
    facilitator,
    facilitatorUrl,
    facilitatorAuthToken: token,
    ...(facilitator === 'cdp' && cdpKeyId && cdpKeySecret ? { cdpApiKey: { id: cdpKeyId, secret: cdpKeySecret } } : {}),
    facilitatorTimeoutMs: env.int('X402_FACILITATOR_TIMEOUT_MS', 15_000, { min: 100, max: 120_000 }),
    maxTimeoutSeconds: env.int('X402_MAX_TIMEOUT_SECONDS', 300, { min: 10, max: 3600 }),
    networks,
  };
}
