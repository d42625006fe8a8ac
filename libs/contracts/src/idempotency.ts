/**
 * Remembered answers for retried calls: an x402 `payment-identifier` or an `Idempotency-Key` names a
 * call, and a retry of the same call gets the first answer again instead of paying twice. Payments
 * keeps the records in Redis; the gateway claims a record before it charges and fills it after.
 */

/** One record: who may use the name (`x402` for payment ids, `key:<key hash>` for Idempotency-Key), the name, and what the call was. */
export interface IdempotencyBeginRequest {
  scope: string;
  key: string;
  /** A hash of what the call asks and pays with: the same name with another fingerprint is a conflict. */
  fingerprint: string;
  requestId: string;
}

export type IdempotencyBeginReply =
  /** New: the caller makes the call and then finishes the record with `token`. */
  | { state: 'claimed'; token: string }
  /** The same call is being made right now; ask again shortly. */
  | { state: 'in-flight' }
  /** The name was used for another call. */
  | { state: 'conflict' }
  /** The call was made: its answer, as the gateway stored it. */
  | { state: 'done'; answerJson: string }
  /** The call was made, but its answer was too large to remember. */
  | { state: 'done-unkept' };

export interface IdempotencyFinishRequest {
  scope: string;
  key: string;
  token: string;
  /** The answer to remember; absent: the call charged nothing, so forget the record and let a retry go ahead. */
  answerJson?: string;
  requestId: string;
}

export type IdempotencyFinishReply = { stored: boolean };

const KEY_SCOPE_PREFIX = 'key:';

/** The scope of a credit-paid call's records (`Idempotency-Key`): the API key's hash. */
export function keyScope(keyHash: string): string {
  return KEY_SCOPE_PREFIX + keyHash;
}

/** The key hash a record's scope belongs to, if it is a key's: its answers replay only while the key may pay. */
export function keyHashOfScope(scope: string): string | undefined {
  return scope.startsWith(KEY_SCOPE_PREFIX) ? scope.slice(KEY_SCOPE_PREFIX.length) : undefined;
}
