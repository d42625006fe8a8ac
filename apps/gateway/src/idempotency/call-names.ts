import { type ApiKeyHash, type CatalogQuery, decodeX402Header, keyScope } from '@appcat/contracts';
import { extractPaymentIdentifier } from '@x402/extensions/payment-identifier';
import type { PaymentPayload } from '@x402/core/types';
import type { IncomingHttpHeaders } from 'node:http';
import { createHash } from 'node:crypto';
import { HttpError } from '../errors/http-error.js';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** Stripe's rule: 1 to 255 visible ASCII characters. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** What names a call for remembering its answer, and what the call was. */
export interface CallName {
  scope: string;
  key: string;
  /** The same name with another fingerprint is a conflict (409). */
  fingerprint: string;
  /** How the caller named it, for messages: `Idempotency-Key` or `payment-identifier`. */
  label: 'Idempotency-Key' | 'payment-identifier';
  /** The answer is kept sealed (AnswerSeal): it holds a secret, such as a top-up's new API key. */
  sealed?: boolean;
}

/** The `Idempotency-Key` header, if sent; a malformed one is a 400 naming the header. */
export function readIdempotencyKey(headers: IncomingHttpHeaders): string | undefined {
  const value = headers[IDEMPOTENCY_KEY_HEADER];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !IDEMPOTENCY_KEY.test(value))
    throw new HttpError(400, 'Idempotency-Key must be 1 to 255 visible ASCII characters');
  return value;
}

/** How a priced call pays, as far as its name goes. */
export type Payer = { kind: 'credits'; keyHash: ApiKeyHash } | { kind: 'x402'; paymentSignature: string };

/**
 * What names a priced call for remembering its answer: the x402 payment-identifier, or the
 * `Idempotency-Key` of a credit-paid call (read only then: x402 calls ignore the header). The store is
 * part of what was asked: the same query at another store's address is another call.
 */
export function pricedCallName(
  payer: Payer,
  idempotencyKey: (() => string | undefined) | undefined,
  store: string,
  query: CatalogQuery,
): CallName | undefined {
  const what = { store, ...query };
  if (payer.kind === 'x402') return paymentCallName(payer.paymentSignature, what);
  const key = idempotencyKey?.();
  return key === undefined ? undefined : keyedCallName(payer.keyHash, key, what);
}

/** A credit-paid call named by `Idempotency-Key`: scoped to its API key; the same request is the same route and parameters. */
function keyedCallName(keyHash: ApiKeyHash, idempotencyKey: string, what: Record<string, unknown>): CallName {
  return {
    scope: keyScope(keyHash),
    key: idempotencyKey,
    fingerprint: sha256(JSON.stringify(what)),
    label: 'Idempotency-Key',
  };
}

/**
 * An x402-paid call named by the payment's `payment-identifier` extension (x402's own idempotency id):
 * the same id with the same payload for the same call (route and parameters: `what`) is the same call;
 * anything else under it is a conflict, so a remembered answer is never served for another call. A
 * payload that does not decode, or carries no valid id, names nothing (payments judges the payment).
 */
function paymentCallName(paymentSignature: string, what: Record<string, unknown>): CallName | undefined {
  let id: string | null;
  try {
    id = extractPaymentIdentifier(decodeX402Header(paymentSignature) as PaymentPayload, true);
  } catch {
    return undefined;
  }
  return id
    ? {
        scope: 'x402',
        key: id,
        fingerprint: sha256(JSON.stringify({ ...what, paymentSignature })),
        label: 'payment-identifier',
      }
    : undefined;
}

/**
 * A top-up named by its payment's `payment-identifier`: the same purchase is the same payload for the
 * same amount, bought as a new key or for the same key (`keyHash`). Its answer is sealed: a new key's
 * answer is the key itself.
 */
export function topUpCallName(
  paymentSignature: string,
  amount: bigint,
  keyHash: ApiKeyHash | undefined,
): CallName | undefined {
  const name = paymentCallName(paymentSignature, { topUp: amount.toString(), keyHash: keyHash ?? null });
  return name && { ...name, sealed: true };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}
