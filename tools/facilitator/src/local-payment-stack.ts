import type { X402NetworkName } from '@appcat/contracts';
import { DEV_ACCOUNTS, freePorts, LOCAL_EVM_NETWORKS, type LocalChain, type LocalChains, startLocalChains } from '@appcat/local-chain';
import { type DevFacilitator, type DevFacilitatorOptions, startDevFacilitator } from './server.js';

export interface LocalPaymentStackOptions extends Pick<DevFacilitatorOptions, 'authToken' | 'cdpKeys' | 'receiptTimeoutMs'> {
  /** Which EVM networks get a chain (and the facilitator's scheme); default every one of the table. */
  networks?: readonly X402NetworkName[];
}

/**
 * What tests, the chaos run and the bench pay against: one anvil per EVM network on free ports, each
 * with the test USDC and the funded demo payer, and the dev facilitator settling on all of them.
 */
export interface LocalPaymentStack {
  chains: LocalChains;
  facilitator: DevFacilitator;
  /** The chain of a network. */
  chain(name: X402NetworkName): LocalChain;
  /** The demo payer's EVM key (anvil account 0), the same on every chain. */
  evmPayerKey: `0x${string}`;
  /** The settings that point payments at this stack. */
  paymentsEnv: Record<string, string>;
  stop(): Promise<void>;
}

export async function startLocalPaymentStack(options: LocalPaymentStackOptions = {}): Promise<LocalPaymentStack> {
  const chains = await startLocalChains({ networks: options.networks, ports: freePorts() });
  let facilitator: DevFacilitator;
  try {
    facilitator = await startDevFacilitator({
      rpcUrl: chains.chains[0].rpcUrl,
      port: 0,
      networks: chains.chains.map((c) => ({ network: c.network, rpcUrl: c.rpcUrl })),
      authToken: options.authToken,
      cdpKeys: options.cdpKeys,
      receiptTimeoutMs: options.receiptTimeoutMs,
    });
  } catch (error) {
    await chains.stop();
    throw error;
  }
  // Networks without a chain here are switched off, so payments offers only what can settle.
  const off = LOCAL_EVM_NETWORKS.map((n) => n.name).filter((n) => options.networks && !options.networks.includes(n));
  return {
    chains,
    facilitator,
    chain: (name) => chains.of(name),
    evmPayerKey: DEV_ACCOUNTS.payer.privateKey,
    paymentsEnv: {
      X402_FACILITATOR_URL: facilitator.url,
      ...Object.fromEntries(off.map((n) => [`X402_${n.toUpperCase()}_PAY_TO`, 'none'])),
    },
    stop: async () => {
      await facilitator.stop();
      await chains.stop();
    },
  };
}
