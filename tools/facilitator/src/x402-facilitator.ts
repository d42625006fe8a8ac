import { x402Facilitator } from '@x402/core/facilitator';
import type { Network } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createFacilitatorEvmSigner } from './evm-signer.js';

/** One EVM network the facilitator settles on, and the JSON-RPC endpoint it reaches it by. */
export interface FacilitatorNetwork {
  network: Network;
  rpcUrl: string;
}

export interface X402FacilitatorOptions {
  privateKey: Hex;
  networks: FacilitatorNetwork[];
  receiptTimeoutMs: number;
}

export function evmChainId(network: string): number {
  const match = /^eip155:([1-9]\d*)$/.exec(network);
  if (!match) throw new Error(`not an EVM network (eip155:<chain id>): ${network}`);
  return Number(match[1]);
}

/**
 * An in-process x402 facilitator: `x402Facilitator` from @x402/core with @x402/evm's exact scheme
 * registered for protocol v2 on each network, each with its own signer bound to that network's RPC.
 * (registerExactEvmScheme would also register v1 on every named network over the same RPC, which
 * this facilitator cannot settle on, so it is not used.)
 */
export function createX402Facilitator(options: X402FacilitatorOptions): { facilitator: x402Facilitator; address: Hex } {
  const account = privateKeyToAccount(options.privateKey);
  const facilitator = new x402Facilitator();
  for (const { network, rpcUrl } of options.networks) {
    const signer = createFacilitatorEvmSigner({
      account,
      chainId: evmChainId(network),
      rpcUrl,
      receiptTimeoutMs: options.receiptTimeoutMs,
    });
    facilitator.register(network, new ExactEvmScheme(signer));
  }
  return { facilitator, address: account.address };
}
