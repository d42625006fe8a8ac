import { readConfig } from '@appcat/config';
import { BASE_CHAIN_ID } from './usdc-deployments.js';
import { DEFAULT_LOCAL_CHAIN_PORT } from './local-chain.js';

export interface LocalChainConfig {
  host: string;
  port: number;
  chainId: number;
}

export function readLocalChainConfig(env: Record<string, string | undefined> = process.env): LocalChainConfig {
  return readConfig(
    (e) => ({
      host: e.string('LOCAL_CHAIN_HOST', '127.0.0.1'),
      port: e.int('LOCAL_CHAIN_PORT', DEFAULT_LOCAL_CHAIN_PORT, { min: 0, max: 65535 }),
      chainId: e.int('LOCAL_CHAIN_ID', BASE_CHAIN_ID, { min: 1, max: 2 ** 32 - 1 }),
    }),
    env,
  );
}
