import { readConfig } from '@appcat/config';
import type { X402NetworkName } from '@appcat/contracts';
import { LOCAL_EVM_NETWORKS, localChainPortSetting } from './local-chains.js';

export interface LocalChainConfig {
  host: string;
  networks: X402NetworkName[];
  /** Port per network. */
  ports: Partial<Record<X402NetworkName, number>>;
}

/**
 * LOCAL_CHAIN_NETWORKS picks the EVM networks (default all: base,monad,polygon,arbitrum);
 * LOCAL_CHAIN_<NAME>_PORT moves one (LOCAL_CHAIN_PORT is Base's, as before).
 */
export function readLocalChainConfig(env: Record<string, string | undefined> = process.env): LocalChainConfig {
  return readConfig((e) => {
    const known = LOCAL_EVM_NETWORKS.map((n) => n.name);
    const networks = e
      .string('LOCAL_CHAIN_NETWORKS', known.join(','))
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean) as X402NetworkName[];
    for (const name of networks)
      if (!known.includes(name))
        e.fail(`LOCAL_CHAIN_NETWORKS has ${JSON.stringify(name)}, expected some of ${known.join(', ')}`);
    if (networks.length === 0) e.fail('LOCAL_CHAIN_NETWORKS names no network');
    const ports: Partial<Record<X402NetworkName, number>> = {};
    for (const n of LOCAL_EVM_NETWORKS) {
      ports[n.name] = e.int(localChainPortSetting(n.name), n.port, { min: 1, max: 65535 });
    }
    return { host: e.string('LOCAL_CHAIN_HOST', '127.0.0.1'), networks, ports };
  }, env);
}
