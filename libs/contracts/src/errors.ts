/**
 * Typed error codes that cross NATS. Services never send free-form failures: every failed reply is a
 * {@link WireError}, and the gateway maps each code to an HTTP status in exactly one place
 * (apps/gateway/src/errors/http-status.ts), with an exhaustive switch so a new code cannot be forgotten.
 */
export enum ErrorCode {
  /** The API key is not known. */
  CreditKeyUnknown = 'CREDIT_KEY_UNKNOWN',
  /** The API key was revoked. */
  CreditKeyRevoked = 'CREDIT_KEY_REVOKED',
  /** The balance is below the price of the call; nothing was debited. */
  CreditInsufficient = 'CREDIT_INSUFFICIENT',
  /** Redis or Postgres could not be reached by payments; nothing was debited. */
  CreditStoreUnavailable = 'CREDIT_STORE_UNAVAILABLE',

  /** x402: the payment header is malformed or does not meet the offer (scheme, network, asset, amount, payTo, resource). */
  PaymentInvalid = 'PAYMENT_INVALID',
  /** x402: this payment payload was already used, or is being settled right now. */
  PaymentReplayed = 'PAYMENT_REPLAYED',
  /** x402: the facilitator refused to settle (expired authorization, insufficient funds, bad signature…). */
  PaymentSettlementFailed = 'PAYMENT_SETTLEMENT_FAILED',
  /**
   * x402: the facilitator failed or did not answer in time after it was asked; a settlement asked for
   * may have gone through.
   */
  FacilitatorUnavailable = 'FACILITATOR_UNAVAILABLE',
  /**
   * x402: the facilitator could not be used at all (no connection could be opened, or its `/supported`
   * could not be read), so no settlement was asked for: nothing was charged.
   */
  FacilitatorUnreachable = 'FACILITATOR_UNREACHABLE',

  /** An idempotency name (Idempotency-Key, x402 payment-identifier) was used for another call, or its first call is still running. */
  IdempotencyConflict = 'IDEMPOTENCY_CONFLICT',

  /** Admin: no key matches the given key, prefix or id. */
  AdminKeyNotFound = 'ADMIN_KEY_NOT_FOUND',
  /** Admin: a prefix matches more than one key. */
  AdminKeyAmbiguous = 'ADMIN_KEY_AMBIGUOUS',
  /** Admin or top-up: an argument is out of range or malformed. */
  InvalidArgument = 'INVALID_ARGUMENT',

  /** The upstream store did not answer in time. */
  UpstreamTimeout = 'UPSTREAM_TIMEOUT',
  /** The upstream store refused the connection or could not be resolved. */
  UpstreamUnreachable = 'UPSTREAM_UNREACHABLE',
  /** The upstream store throttled us (403 with an empty body, 429). */
  UpstreamThrottled = 'UPSTREAM_THROTTLED',
  /** The upstream store answered with an unexpected HTTP status. */
  UpstreamHttpError = 'UPSTREAM_HTTP_ERROR',
  /** The upstream store answered something we could not parse. */
  UpstreamBadResponse = 'UPSTREAM_BAD_RESPONSE',

  /** No replica of the service is subscribed (it is down or still starting), or the catalog replica's fetch slots stayed full; the request was not handled. */
  ServiceUnavailable = 'SERVICE_UNAVAILABLE',
  /** The service did not answer in time; it may or may not have handled the request. */
  ServiceTimeout = 'SERVICE_TIMEOUT',
  /** The service handled the request but its answer is larger than a NATS message may be (`max_payload`). */
  ReplyTooLarge = 'REPLY_TOO_LARGE',

  /** A bug or an unexpected state inside a service. */
  Internal = 'INTERNAL',
}

export interface WireError {
  code: ErrorCode;
  /** Safe to show to a caller: no secrets, no stack traces. */
  message: string;
}

const ERROR_CODES: ReadonlySet<string> = new Set(Object.values(ErrorCode));

export function isWireError(value: unknown): value is WireError {
  return (
    typeof value === 'object' &&
    value !== null &&
    ERROR_CODES.has((value as { code?: unknown }).code as string) &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}
