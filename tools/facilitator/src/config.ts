import { readConfig } from '@appcat/config';
import { LOCAL_EVM_NETWORKS } from '@appcat/local-chain';
import type { Hex } from 'viem';
import {
  DEFAULT_FACILITATOR_PORT,
  DEFAULT_FACILITATOR_PRIVATE_KEY,
  DEFAULT_RECEIPT_TIMEOUT_MS,
  type DevFacilitatorOptions,
} from './server.js';
import type { FacilitatorSolana } from './solana.js';
import type { FacilitatorNetwork } from './x402-facilitator.js';
import { type CdpApiKey, cdpPublicKey } from './cdp-auth.js';

export type FacilitatorConfig = Required<
  Omit<DevFacilitatorOptions, 'authToken' | 'networks' | 'cdpKeys' | 'solana'>
> & {
  networks: FacilitatorNetwork[];
  authToken?: string;
  /** FACILITATOR_CDP_API_KEY_ID and _SECRET: requests must carry CDP JWTs signed by that key. */
  cdpKeys?: CdpApiKey[];
  solana?: FacilitatorSolana;
};

/** The local Solana ledger (@appcat/solana-ledger's default port). */
export const DEFAULT_SOLANA_RPC_URL = 'http://127.0.0.1:8899';

/**
 * The networks the facilitator settles on by default: every local EVM chain of `npm start`, each at
 * its own port (`eip155:8453=http://127.0.0.1:8545,eip155:143=http://127.0.0.1:8546,…`).
 */
export const DEFAULT_FACILITATOR_NETWORKS = LOCAL_EVM_NETWORKS.map(
  (n) => `eip155:${n.chainId}=http://127.0.0.1:${n.port}`,
).join(',');

/**
 * FACILITATOR_NETWORKS is a comma-separated list of CAIP-2 EVM networks; an entry may name its own
 * JSON-RPC endpoint as `eip155:143=http://127.0.0.1:8546`, the others use FACILITATOR_RPC_URL.
 */
export function readFacilitatorConfig(env: Record<string, string | undefined> = process.env): FacilitatorConfig {
  return readConfig((e) => {
    const rpcUrl = e.url('FACILITATOR_RPC_URL', 'http://127.0.0.1:8545');
    const networks: FacilitatorNetwork[] = [];
    for (const entry of e
      .string('FACILITATOR_NETWORKS', DEFAULT_FACILITATOR_NETWORKS)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const [network = '', ownRpcUrl] = entry.split('=', 2).map((s) => s.trim());
      if (!/^eip155:[1-9]\d*$/.test(network)) {
        e.fail(`FACILITATOR_NETWORKS has ${JSON.stringify(network)}, expected eip155:<chain id>`);
        continue;
      }
      if (ownRpcUrl !== undefined && !/^https?:\/\/\S+$/.test(ownRpcUrl)) {
        e.fail(`FACILITATOR_NETWORKS gives ${network} the RPC ${JSON.stringify(ownRpcUrl)}, expected an http(s) URL`);
        continue;
      }
      if (networks.some((n) => n.network === network)) e.fail(`FACILITATOR_NETWORKS lists ${network} twice`);
      networks.push({ network: network as FacilitatorNetwork['network'], rpcUrl: ownRpcUrl ?? rpcUrl });
    }
    if (networks.length === 0) e.fail('FACILITATOR_NETWORKS names no network');
    const privateKey = e.string('FACILITATOR_PRIVATE_KEY', DEFAULT_FACILITATOR_PRIVATE_KEY);
    if (!/^0x[0-9a-fA-F]{64}$/.test(privateKey)) e.fail('FACILITATOR_PRIVATE_KEY must be 0x followed by 64 hex digits');
    const cdpKeyId = e.optionalString('FACILITATOR_CDP_API_KEY_ID');
    const cdpKeySecret = e.optionalString('FACILITATOR_CDP_API_KEY_SECRET');
    if ((cdpKeyId === undefined) !== (cdpKeySecret === undefined))
      e.fail('FACILITATOR_CDP_API_KEY_ID and FACILITATOR_CDP_API_KEY_SECRET go together');
    if (cdpKeySecret !== undefined) {
      try {
        cdpPublicKey(cdpKeySecret);
      } catch {
        e.fail('FACILITATOR_CDP_API_KEY_SECRET must be a base64 Ed25519 key or a PEM EC key');
      }
    }
    // Solana is settled through FACILITATOR_SOLANA_RPC_URL (the local ledger by default; "none" turns it off).
    const solanaRpcUrl = e.string('FACILITATOR_SOLANA_RPC_URL', DEFAULT_SOLANA_RPC_URL);
    const solanaSecretKey = e.optionalString('FACILITATOR_SOLANA_SECRET_KEY');
    if (solanaRpcUrl !== 'none' && !/^https?:\/\/\S+$/.test(solanaRpcUrl)) {
      e.fail(`FACILITATOR_SOLANA_RPC_URL must be an http(s) URL or "none", got ${JSON.stringify(solanaRpcUrl)}`);
    }
    if (solanaSecretKey !== undefined && !/^[1-9A-HJ-NP-Za-km-z]{86,88}$/.test(solanaSecretKey)) {
      e.fail('FACILITATOR_SOLANA_SECRET_KEY must be a 64-byte secret key in base58');
    }
    const solana =
      solanaRpcUrl === 'none'
        ? undefined
        : { rpcUrl: solanaRpcUrl.replace(/\/+$/, ''), ...(solanaSecretKey ? { secretKey: solanaSecretKey } : {}) };
    return {
      ...(cdpKeyId && cdpKeySecret ? { cdpKeys: [{ id: cdpKeyId, secret: cdpKeySecret }] } : {}),
      host: e.string('FACILITATOR_HOST', '127.0.0.1'),
      port: e.int('FACILITATOR_PORT', DEFAULT_FACILITATOR_PORT, { min: 0, max: 65535 }),
      rpcUrl,
      networks,
      privateKey: privateKey as Hex,
      authToken: e.optionalString('FACILITATOR_AUTH_TOKEN'),
      receiptTimeoutMs: e.int('FACILITATOR_RECEIPT_TIMEOUT_MS', DEFAULT_RECEIPT_TIMEOUT_MS, { min: 100, max: 600_000 }),
      solana,
    };
  }, env);
}
