import type { MicroUsdString } from './money.js';

/**
 * The gateway never sends an API key over NATS: it sends the key's SHA-256 (hex), the same value that
 * Postgres stores. The key itself exists only in the caller's hands and, once, in the reply that
 * created it.
 */
export type ApiKeyHash = string;

export interface DebitRequest {
  keyHash: ApiKeyHash;
  /** Price of the call in µUSD ("3000"). */
  amount: MicroUsdString;
  /** Route id, kept with the debit for the ledger. */
  route: string;
  requestId: string;
}

export interface DebitReply {
  /** Unique id of this debit; the ledger row in Postgres carries it. */
  debitId: string;
  /** Balance left after the debit, µUSD. */
  balance: MicroUsdString;
}

/**
 * `payments.credits.reserve`: holds the price on the key (taken from its balance, not yet spent) while the
 * call fetches; the hold is captured on data in hand, released on failure, and released by itself when
 * neither comes within the hold's lifetime. Same fields as a debit.
 */
export type ReserveRequest = DebitRequest;

export interface ReserveReply {
  /** Names the hold; becomes the debit id when captured. */
  reservationId: string;
  /** Balance left while the hold stands, µUSD. */
  balance: MicroUsdString;
}

/** `payments.credits.capture` / `.release`: the hold, with the fields it was reserved with. */
export interface HoldRequest extends DebitRequest {
  reservationId: string;
}

/** A captured hold is a debit: its id is the reservation's. */
export type CaptureReply = DebitReply;

export interface ReleaseReply {
  /** False when the hold was already gone (captured, or released by its deadline). */
  released: boolean;
}

export interface BalanceRequest {
  keyHash: ApiKeyHash;
}

export interface BalanceReply {
  balance: MicroUsdString;
}

export type KeyStatus = 'active' | 'revoked';

export interface AdminCreateKeyRequest {
  /** Opening credit, µUSD; "0" creates an empty key. */
  credit: MicroUsdString;
  /** Free-form note kept with the top-up (who asked, why). */
  note?: string;
}

/** The only message that ever carries an API key in clear. */
export interface AdminKeyCreated {
  key: string;
  id: string;
  prefix: string;
  balance: MicroUsdString;
}

/** A key is named by the full key, its display prefix, or its id. */
export interface AdminKeyRef {
  ref: string;
}

export interface AdminKeyTopUp {
  id: string;
  amount: MicroUsdString;
  method: string;
  reference: string;
  createdAt: string;
}

export interface AdminKeyDetails {
  id: string;
  prefix: string;
  status: KeyStatus;
  createdAt: string;
  revokedAt: string | null;
  toppedUp: MicroUsdString;
  /** Spent credit as recorded in Postgres (flushed from Redis within about a second). */
  spent: MicroUsdString;
  /** The live balance (Redis when it holds the key, otherwise Postgres). */
  balance: MicroUsdString;
  topUps: AdminKeyTopUp[];
}

export type AdminKeySummary = Omit<AdminKeyDetails, 'topUps'>;

export interface AdminKeyList {
  keys: AdminKeySummary[];
}
