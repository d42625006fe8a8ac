import { X402_EVM_NETWORKS, type X402NetworkName } from '@appcat/contracts';
import { type LocalChain, type LocalChainOptions, startLocalChain } from './local-chain.js';

/** One local EVM chain of the payment stack: a network of the table and the port its anvil listens on by default. */
export interface LocalEvmNetwork {
  name: X402NetworkName;
  /** "Base" */
  title: string;
  chainId: number;
  /** Default port on 127.0.0.1. */
  port: number;
}

const DEFAULT_PORTS: Partial<Record<X402NetworkName, number>> = {
  base: 8545,
  monad: 8546,
  polygon: 8547,
  arbitrum: 8548,
};

/**
 * The local EVM chains, one anvil per EVM network of the table with that network's chain id, in
 * offer order: Base on 8545, Monad on 8546, Polygon on 8547, Arbitrum on 8548.
 */
export const LOCAL_EVM_NETWORKS: readonly LocalEvmNetwork[] = X402_EVM_NETWORKS.map((n) => ({
  name: n.name,
  title: n.title,
  chainId: n.chainId as number,
  port: DEFAULT_PORTS[n.name] as number,
}));

/** The setting that moves a network's local chain: LOCAL_CHAIN_PORT for Base (as before), LOCAL_CHAIN_<NAME>_PORT for the others. */
export function localChainPortSetting(name: X402NetworkName): string {
  return name === 'base' ? 'LOCAL_CHAIN_PORT' : `LOCAL_CHAIN_${name.toUpperCase()}_PORT`;
}

export interface LocalChainsOptions extends Pick<LocalChainOptions, 'host' | 'payerFunding'> {
  /** Which networks; default every EVM network of the table. */
  networks?: readonly X402NetworkName[];
  /** Port per network (0 picks a free one, what tests want); networks left out take their default port. */
  ports?: Partial<Record<X402NetworkName, number>>;
}

export interface LocalChains {
  /** In offer order. */
  chains: LocalChain[];
  /** The chain of a network; throws if it was not started. */
  of(name: X402NetworkName): LocalChain;
  stop(): Promise<void>;
}

/** Starts one local chain per EVM network (side by side), each with the test USDC and the funded demo payer. */
export async function startLocalChains(options: LocalChainsOptions = {}): Promise<LocalChains> {
  const wanted = LOCAL_EVM_NETWORKS.filter((n) => !options.networks || options.networks.includes(n.name));
  const started = await Promise.allSettled(
    wanted.map((n) =>
      startLocalChain({
        host: options.host,
        port: options.ports?.[n.name] ?? n.port,
        chainId: n.chainId,
        payerFunding: options.payerFunding,
      }),
    ),
  );
  const chains = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await Promise.all(chains.map((c) => c.stop()));
    throw failed.reason;
  }
  return {
    chains,
    of(name) {
      const index = wanted.findIndex((n) => n.name === name);
      if (index < 0) throw new Error(`no local chain was started for ${name}`);
      return chains[index];
    },
    stop: async () => {
      await Promise.all(chains.map((c) => c.stop()));
    },
  };
}

/** Every network on a free port: what tests pass as `ports`. */
export function freePorts(): Partial<Record<X402NetworkName, number>> {
  return Object.fromEntries(LOCAL_EVM_NETWORKS.map((n) => [n.name, 0]));
}
