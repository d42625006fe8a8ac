import type { X402NetworkName } from '@appcat/contracts';
import {
  DEV_ACCOUNTS,
  freePorts,
  LOCAL_EVM_NETWORKS,
  type LocalChain,
  type LocalChains,
  startLocalChains,
} from '@appcat/local-chain';
import { type SolanaLedger, startSolanaLedger } from '@appcat/solana-ledger';
import { type DevFacilitator, type DevFacilitatorOptions, startDevFacilitator } from './server.js';

export interface LocalPaymentStackOptions extends Pick<
  DevFacilitatorOptions,
  'authToken' | 'cdpKeys' | 'receiptTimeoutMs'
> {
  /** Which networks get a chain or ledger (and the facilitator's scheme); default every one of the table. */
  networks?: readonly X402NetworkName[];
}

/**
 * What tests, the chaos run and the bench pay against: one anvil per EVM network on free ports, each
 * with the test USDC and the funded demo payer, the local Solana ledger on a free port, and the dev
 * facilitator settling on all of them.
 */
export interface LocalPaymentStack {
  chains: LocalChains;
  /** The local Solana ledger, unless `networks` leaves Solana out. */
  solana?: SolanaLedger;
  facilitator: DevFacilitator;
  /** The chain of an EVM network. */
  chain(name: X402NetworkName): LocalChain;
  /** The demo payer's EVM key (anvil account 0), the same on every chain. */
  evmPayerKey: `0x${string}`;
  /** The settings that point payments (the facilitator, networks left out switched off) and the gateway's /topup page (the Solana RPC) at this stack. */
  paymentsEnv: Record<string, string>;
  stop(): Promise<void>;
}

export async function startLocalPaymentStack(options: LocalPaymentStackOptions = {}): Promise<LocalPaymentStack> {
  const wants = (name: X402NetworkName) => !options.networks || options.networks.includes(name);
  const chains = await startLocalChains({ networks: options.networks, ports: freePorts() });
  let solana: SolanaLedger | undefined;
  let facilitator: DevFacilitator;
  try {
    solana = wants('solana') ? await startSolanaLedger({ port: 0 }) : undefined;
    facilitator = await startDevFacilitator({
      rpcUrl: chains.chains[0].rpcUrl,
      port: 0,
      networks: chains.chains.map((c) => ({ network: c.network, rpcUrl: c.rpcUrl })),
      solana: solana ? { rpcUrl: solana.url } : undefined,
      authToken: options.authToken,
      cdpKeys: options.cdpKeys,
      receiptTimeoutMs: options.receiptTimeoutMs,
    });
  } catch (error) {
    await solana?.close();
    await chains.stop();
    throw error;
  }
  // Networks without a chain or ledger here are switched off, so payments offers only what can settle.
  const off = [...LOCAL_EVM_NETWORKS.map((n) => n.name), 'solana' as const].filter((n) => !wants(n));
  return {
    chains,
    solana,
    facilitator,
    chain: (name) => chains.of(name),
    evmPayerKey: DEV_ACCOUNTS.payer.privateKey,
    paymentsEnv: {
      X402_FACILITATOR_URL: facilitator.url,
      ...(solana ? { TOPUP_SOLANA_RPC_URL: solana.url } : {}),
      ...Object.fromEntries(off.map((n) => [`X402_${n.toUpperCase()}_PAY_TO`, 'none'])),
    },
    stop: async () => {
      await facilitator.stop();
      await solana?.close();
      await chains.stop();
    },
  };
}
