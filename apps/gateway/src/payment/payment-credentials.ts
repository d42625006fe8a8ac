import { type ApiKeyHash, hashApiKey, looksLikeApiKey } from '@appcat/contracts';
import type { IncomingHttpHeaders } from 'node:http';
import { HttpError, Messages } from '../errors/http-error.js';

/** How a request offers to pay: nothing yet, a prepaid key, or an x402 payment payload. */
export type PaymentCredentials =
  { kind: 'none' } | { kind: 'credits'; keyHash: ApiKeyHash } | { kind: 'x402'; paymentSignature: string };

export const PAYMENT_SIGNATURE_HEADER = 'payment-signature';

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Reads the payment means of a request. A request carrying both a key and an x402 payment is refused
 * (400) rather than guessed at: charging the wrong one, or both, is worse than asking again.
 */
export function readPaymentCredentials(headers: IncomingHttpHeaders): PaymentCredentials {
  const authorization = headers.authorization;
  const paymentSignature = readPaymentSignature(headers);
  if (authorization !== undefined && paymentSignature !== undefined) {
    throw new HttpError(400, 'authorization and payment-signature cannot be combined: pay with one');
  }
  if (paymentSignature !== undefined) return { kind: 'x402', paymentSignature };
  if (authorization === undefined) return { kind: 'none' };
  return { kind: 'credits', keyHash: readBearerKeyHash(authorization) };
}

/** The `payment-signature` header, its values joined if it came more than once (payments then refuses it). */
export function readPaymentSignature(headers: IncomingHttpHeaders): string | undefined {
  const signature = headers[PAYMENT_SIGNATURE_HEADER];
  return Array.isArray(signature) ? signature.join(',') : signature;
}

/** The hash of the key in an `Authorization: Bearer <key>` header; 401 for anything else. */
export function readBearerKeyHash(authorization: string): ApiKeyHash {
  const match = BEARER.exec(authorization);
  if (!match) throw new HttpError(401, 'authorization must be "Bearer <api key>"');
  // A string that cannot be a key is refused here, without a round trip to payments.
  if (!looksLikeApiKey(match[1])) throw new HttpError(401, 'invalid api key');
  return hashApiKey(match[1]);
}

/** The key hash of credentials that must be an API key (the free balance read); 401 otherwise. */
export function requireKeyHash(credentials: PaymentCredentials): ApiKeyHash {
  if (credentials.kind !== 'credits') throw new HttpError(401, Messages.apiKeyRequired);
  return credentials.keyHash;
}
