import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '@appcat/contracts';
import { findAssociatedTokenPda, parseTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import {
  type Address,
  decompileTransactionMessage,
  getCompiledTransactionMessageDecoder,
  getPublicKeyFromAddress,
  verifySignature,
} from '@solana/kit';
import type { PaymentRequirements } from '@x402/core/types';
import type { Hex } from 'viem';
// viem's utils entry, not its root, and EIP-3009's type from our contracts rather than from @x402/evm's
// root: those two roots load about 2.7 MB more heap into every payments replica.
import { getAddress, isAddressEqual, recoverTypedDataAddress } from 'viem/utils';
import { decodeWireTransaction } from './solana-wire.js';

/**
 * What can be told of a payment without a chain: it is `valid` as signed (the facilitator still has the
 * last word on funds and on-chain state), `invalid` for a reason, or `undecided` (a smart-wallet
 * signature, lookup tables): only the facilitator's /verify can tell.
 */
export type LocalVerdict = { kind: 'valid' } | { kind: 'invalid'; reason: string } | { kind: 'undecided' };

const VALID: LocalVerdict = { kind: 'valid' };
const UNDECIDED: LocalVerdict = { kind: 'undecided' };
const TRANSFER_CHECKED = 12;
const compiledMessageDecoder = getCompiledTransactionMessageDecoder();

/** Checks the signed transfer in `payload` against `requirement` (window checks: payment-validity.ts). */
export function checkPaymentLocally(
  kind: 'evm' | 'svm',
  payload: unknown,
  requirement: PaymentRequirements,
): Promise<LocalVerdict> {
  return kind === 'evm' ? checkEip3009(payload, requirement, true) : checkSolanaTransfer(payload, requirement);
}

/**
 * As checkPaymentLocally, but an EIP-3009 signature is left unchecked (`valid` then says nothing of it):
 * for a payment settled at once, whose settle the facilitator verifies first anyway, the recovery's
 * several ms of CPU would only repeat that. Solana's Ed25519 check is cheap and kept.
 */
export function checkPaymentTerms(
  kind: 'evm' | 'svm',
  payload: unknown,
  requirement: PaymentRequirements,
): Promise<LocalVerdict> {
  return kind === 'evm' ? checkEip3009(payload, requirement, false) : checkSolanaTransfer(payload, requirement);
}

/** An EIP-3009 TransferWithAuthorization: to payTo, exactly the amount, signed by `from` (ECDSA) if `recover`. */
async function checkEip3009(
  payload: unknown,
  requirement: PaymentRequirements,
  recover: boolean,
): Promise<LocalVerdict> {
  const { signature, authorization: a } = (payload ?? {}) as {
    signature?: unknown;
    authorization?: Record<string, unknown>;
  };
  // Permit2 and other transfer methods are the facilitator's to judge.
  if (!a || typeof signature !== 'string') return UNDECIDED;
  const fields = ['from', 'to', 'value', 'validAfter', 'validBefore', 'nonce'] as const;
  if (!fields.every((field) => typeof a[field] === 'string'))
    return invalid('payment authorization lacks one of from, to, value, validAfter, validBefore, nonce');
  const { from, to, value, validAfter, validBefore, nonce } = a as Record<(typeof fields)[number], string>;
  if (!/^0x[0-9a-fA-F]{40}$/.test(from) || !/^0x[0-9a-fA-F]{40}$/.test(to) || !/^0x[0-9a-fA-F]{64}$/.test(nonce))
    return invalid('payment authorization has a malformed address or nonce');
  if (!isAddressEqual(getAddress(to), getAddress(requirement.payTo)))
    return invalid('payment is not addressed to this service');
  if (!/^\d{1,78}$/.test(value) || BigInt(value) !== BigInt(requirement.amount))
    return invalid(`payment authorization value does not match the price (${requirement.amount} required)`);
  if (!recover) return VALID;
  const extra = requirement.extra as { name?: string; version?: string };
  // An EOA's 65-byte signature is recovered here; a contract wallet's (ERC-1271, ERC-6492) needs the chain.
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return UNDECIDED;
  let signer: string;
  try {
    signer = await recoverTypedDataAddress({
      domain: {
        name: extra.name,
        version: extra.version,
        chainId: Number(requirement.network.split(':')[1]),
        verifyingContract: getAddress(requirement.asset),
      },
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: 'TransferWithAuthorization',
      message: {
        from: getAddress(from),
        to: getAddress(to),
        value: BigInt(value),
        validAfter: BigInt(validAfter),
        validBefore: BigInt(validBefore),
        nonce: nonce as Hex,
      },
      signature: signature as Hex,
    });
  } catch {
    signer = '';
  }
  // A contract wallet at `from` may still accept another signer, or another signature format (ERC-1271).
  return signer !== '' && isAddressEqual(signer as Hex, getAddress(from)) ? VALID : UNDECIDED;
}

/**
 * A Solana `exact` transaction: the facilitator's fee payer, one TransferChecked of exactly the amount of
 * the offered mint to payTo's associated token account, and every signature but the fee payer's present
 * and valid over the message.
 */
async function checkSolanaTransfer(payload: unknown, requirement: PaymentRequirements): Promise<LocalVerdict> {
  const transaction = (payload as { transaction?: unknown } | null)?.transaction;
  if (typeof transaction !== 'string') return invalid('payment lacks the signed Solana transaction');
  let decoded: ReturnType<typeof decodeWireTransaction>;
  let message: ReturnType<typeof decompileTransactionMessage>;
  try {
    decoded = decodeWireTransaction(transaction);
    const compiled = compiledMessageDecoder.decode(decoded.messageBytes);
    // Accounts behind lookup tables cannot be read without an RPC node.
    if ('addressTableLookups' in compiled && (compiled.addressTableLookups ?? []).length > 0) return UNDECIDED;
    message = decompileTransactionMessage(compiled);
  } catch {
    return invalid('payment transaction is not a Solana wire transaction');
  }
  const feePayer = (requirement.extra as { feePayer?: string }).feePayer;
  if (message.feePayer.address !== feePayer) return invalid("payment transaction's fee payer is not the facilitator's");
  const transfers = message.instructions.filter(
    (instruction) => instruction.programAddress === TOKEN_PROGRAM_ADDRESS && instruction.data?.[0] === TRANSFER_CHECKED,
  );
  if (transfers.length !== 1) return invalid('payment transaction must hold exactly one USDC transfer');
  let transfer: ReturnType<typeof parseTransferCheckedInstruction>;
  try {
    transfer = parseTransferCheckedInstruction(transfers[0] as Parameters<typeof parseTransferCheckedInstruction>[0]);
  } catch {
    return invalid('payment transaction holds a malformed USDC transfer');
  }
  if (transfer.accounts.mint.address !== requirement.asset)
    return invalid('payment asset is not the USDC this resource accepts');
  const [recipient] = await findAssociatedTokenPda({
    mint: requirement.asset as Address,
    owner: requirement.payTo as Address,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  if (transfer.accounts.destination.address !== recipient) return invalid('payment is not addressed to this service');
  if (transfer.data.amount !== BigInt(requirement.amount))
    return invalid(`payment transfer amount does not match the price (${requirement.amount} required)`);
  for (const [signer, signature] of Object.entries(decoded.signatures)) {
    if (signer === feePayer) continue;
    if (!signature) return invalid('payment transaction lacks the payer signature');
    const key = await getPublicKeyFromAddress(signer as Address);
    if (!(await verifySignature(key, signature, decoded.messageBytes)))
      return invalid('payment transaction signature does not verify');
  }
  return VALID;
}

function invalid(reason: string): LocalVerdict {
  return { kind: 'invalid', reason };
}
