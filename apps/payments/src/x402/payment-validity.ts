import {
  decompileTransactionMessage,
  getCompiledTransactionMessageDecoder,
  isTransactionMessageWithDurableNonceLifetime,
} from '@solana/kit';
import { decodeWireTransaction } from './solana-wire.js';

const compiledMessageDecoder = getCompiledTransactionMessageDecoder();

/**
 * How far a payer's clock may run ahead of ours, seconds. An authorization may be valid for at most the
 * offer's maxTimeoutSeconds plus this, and one whose start lies less than this in the future is taken
 * as valid now (the facilitator has the last word on the exact second).
 */
export const CLOCK_SLACK_SECONDS = 30;
/**
 * An EIP-3009 authorization must still be valid this many seconds from now, or the facilitator refuses
 * it (the margin @x402/evm's facilitator demands for the transfer to land); we refuse it first.
 */
export const MIN_REMAINING_SECONDS = 6;
/**
 * The longest a recent-blockhash Solana transaction can stay valid, seconds: 150 slots (the runtime's
 * maximum blockhash age), counted at a second each, well above the 400 ms target, so a run of slow
 * slots still ends inside it.
 */
export const SOLANA_BLOCKHASH_LIFE_SECONDS = 150;

export type ValidityVerdict = { ok: true; lockMs: number } | { ok: false; reason: string };

/**
 * Decides locally, before any facilitator request, whether a payload can still be settled within the
 * life we offered, and for how long its replay lock must then be held: until the authorization could
 * no longer settle, never less.
 *
 * EVM (EIP-3009): `validAfter` must not lie in the future, `validBefore` must not have passed, and the
 * authorization must not outlive `maxTimeoutSeconds` (plus the clock slack): an authorization valid for
 * a year would otherwise outlive its lock and reach the facilitator again. The lock is held until
 * `validBefore` (plus the slack).
 *
 * Solana: a transaction's lifetime is its recent blockhash (about 150 slots, 60 to 90 s), which cannot
 * be dated without an RPC node, so the facilitator checks that; a durable-nonce transaction, which
 * never expires, is refused here. The lock is held for `maxTimeoutSeconds`, and never less than a
 * blockhash can live (SOLANA_BLOCKHASH_LIFE_SECONDS, whatever maxTimeoutSeconds is set to), plus the slack.
 */
export function paymentValidity(
  kind: 'evm' | 'svm',
  payload: unknown,
  maxTimeoutSeconds: number,
  nowMs: number = Date.now(),
): ValidityVerdict {
  return kind === 'evm' ? evmValidity(payload, maxTimeoutSeconds, nowMs) : svmValidity(payload, maxTimeoutSeconds);
}

function evmValidity(payload: unknown, maxTimeoutSeconds: number, nowMs: number): ValidityVerdict {
  const window = evmWindow(payload);
  if (!window) return { ok: false, reason: 'payment authorization lacks a validity window' };
  const now = BigInt(Math.floor(nowMs / 1000));
  const slack = BigInt(CLOCK_SLACK_SECONDS);
  if (window.validAfter > now + slack) return { ok: false, reason: 'payment authorization is not valid yet' };
  if (window.validBefore < now + BigInt(MIN_REMAINING_SECONDS))
    return { ok: false, reason: 'payment authorization has expired' };
  if (window.validBefore > now + BigInt(maxTimeoutSeconds) + slack) {
    return {
      ok: false,
      reason: `payment authorization is valid for longer than ${maxTimeoutSeconds} s (maxTimeoutSeconds)`,
    };
  }
  return { ok: true, lockMs: Number(window.validBefore - now + slack) * 1000 };
}

/** The validity window of an EIP-3009 authorization, or of a Permit2 one (its deadline ends it). */
function evmWindow(payload: unknown): { validAfter: bigint; validBefore: bigint } | null {
  const p = payload as {
    authorization?: { validAfter?: unknown; validBefore?: unknown };
    permit2Authorization?: { deadline?: unknown; witness?: { validAfter?: unknown } };
  } | null;
  if (p?.authorization) return window(p.authorization.validAfter, p.authorization.validBefore);
  if (p?.permit2Authorization)
    return window(p.permit2Authorization.witness?.validAfter ?? '0', p.permit2Authorization.deadline);
  return null;
}

function window(validAfter: unknown, validBefore: unknown): { validAfter: bigint; validBefore: bigint } | null {
  const integer = (value: unknown) =>
    typeof value === 'string' && /^\d{1,78}$/.test(value)
      ? BigInt(value)
      : typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
        ? BigInt(value)
        : null;
  const after = integer(validAfter);
  const before = integer(validBefore);
  return after === null || before === null ? null : { validAfter: after, validBefore: before };
}

function svmValidity(payload: unknown, maxTimeoutSeconds: number): ValidityVerdict {
  const transaction = (payload as { transaction?: unknown } | null)?.transaction;
  if (typeof transaction !== 'string') return { ok: false, reason: 'payment lacks the signed Solana transaction' };
  let usesDurableNonce: boolean;
  try {
    usesDurableNonce = startsWithAdvanceNonce(transaction);
  } catch {
    return { ok: false, reason: 'payment transaction is not a Solana wire transaction' };
  }
  if (usesDurableNonce)
    return {
      ok: false,
      reason: `payment transaction uses a durable nonce and never expires; it must expire within ${maxTimeoutSeconds} s (a recent blockhash)`,
    };
  return {
    ok: true,
    lockMs: (Math.max(maxTimeoutSeconds, SOLANA_BLOCKHASH_LIFE_SECONDS) + CLOCK_SLACK_SECONDS) * 1000,
  };
}

function startsWithAdvanceNonce(base64: string): boolean {
  const compiled = compiledMessageDecoder.decode(decodeWireTransaction(base64).messageBytes);
  let message: ReturnType<typeof decompileTransactionMessage>;
  try {
    message = decompileTransactionMessage(compiled);
  } catch {
    // Address lookup tables cannot be resolved without an RPC node: the facilitator judges those.
    return false;
  }
  return isTransactionMessageWithDurableNonceLifetime(message);
}
