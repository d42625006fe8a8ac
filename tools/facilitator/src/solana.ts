import type { x402Facilitator } from '@x402/core/facilitator';
import { toFacilitatorSvmSigner } from '@x402/svm';
import { ExactSvmScheme } from '@x402/svm/exact/facilitator';
import { createKeyPairSignerFromBytes, getBase58Encoder } from '@solana/kit';

/** Solana mainnet's CAIP-2 id: the local ledger stands in for mainnet, so payments are signed as there. */
export const SOLANA_MAINNET_NETWORK = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
/**
 * The local Solana ledger's published fee payer (see @appcat/solana-ledger's SOLANA_DEV_ACCOUNTS.feePayer,
 * address EGf34g6uRUtkYz4uUrAQeRgJX2SrhA59qgewa4EhhvW3): local ledgers only.
 */
export const DEFAULT_SOLANA_FEE_PAYER_SECRET_KEY =
  'HQ4po2dzBf8DFrwZAunUnmMRgBaGw7nqZoesLktN95Hf4LvJPiWegjcLKjTKPNdWaYD7SvhyJKmAFNNo9MLQ4Lf';

export interface FacilitatorSolana {
  /** CAIP-2 id. Default: Solana mainnet. */
  network?: string;
  rpcUrl: string;
  /** The fee payer's 64-byte secret key, base58. Default: the local ledger's fee payer. */
  secretKey?: string;
}

/**
 * Registers @x402/svm's exact scheme (x402 v2) on one Solana network: the fee payer co-signs each
 * payer-signed transfer and pays its fee; `/supported` then names it as the network's `feePayer`.
 * (registerExactSvmScheme would also register v1 on every Solana cluster over this one RPC.)
 */
export async function registerSolana(
  facilitator: x402Facilitator,
  solana: FacilitatorSolana,
): Promise<{ network: string; feePayer: string }> {
  const secretKey = new Uint8Array(getBase58Encoder().encode(solana.secretKey ?? DEFAULT_SOLANA_FEE_PAYER_SECRET_KEY));
  const feePayer = await createKeyPairSignerFromBytes(secretKey);
  const network = solana.network ?? SOLANA_MAINNET_NETWORK;
  facilitator.register(
    network as `${string}:${string}`,
    new ExactSvmScheme(toFacilitatorSvmSigner(feePayer, { defaultRpcUrl: solana.rpcUrl })),
  );
  return { network, feePayer: feePayer.address };
}
