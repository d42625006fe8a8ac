import type { MicroUsdString } from './money.js';

/**
 * payments.admin.reconcile: proves the books. Admin only, like the other payments.admin subjects.
 * {@link AdminReconcileRequest} → {@link AdminReconcileReply}.
 */
export interface AdminReconcileRequest {
  /** How long to wait for the ledger stream and queued settlement records to reach Postgres, ms (default 10000). */
  waitMs?: number;
}

/** The longest `waitMs` a reconciliation takes. */
export const RECONCILE_MAX_WAIT_MS = 120_000;

/**
 * - `ok`: Postgres and Redis agree exactly.
 * - `pending`: they agree once the key's debits still in the ledger stream (not flushed yet) and its open
 *   credit holds (calls under way: reserved, not yet captured or released) are counted.
 * - `not_loaded`: Redis does not hold the key (it loads from Postgres on first use); Postgres checked only.
 * - `forgiven`: Redis holds MORE than Postgres implies: debits lost with Redis (docs/credits.md), in the caller's favour.
 * - `short`: Redis holds LESS than Postgres implies: the caller lost credit. Never acceptable.
 * - `postgres_mismatch`: a running total differs from the rows it sums, or a debit is not priced per call.
 */
export type KeyReconciliationStatus = 'ok' | 'pending' | 'not_loaded' | 'forgiven' | 'short' | 'postgres_mismatch';

export interface KeyReconciliation {
  id: string;
  prefix: string;
  /** api_keys.topped_up_micros and the sum of its top_ups rows. */
  toppedUp: MicroUsdString;
  topUpRows: MicroUsdString;
  /** api_keys.spent_micros, the sum of its credit_debits rows and how many there are. */
  spent: MicroUsdString;
  debitRows: MicroUsdString;
  debits: number;
  /** Debits of this key still in the Redis ledger stream (not in Postgres yet). */
  pending: MicroUsdString;
  /** Credit held by this key's open reservations (calls under way), µUSD. */
  held: MicroUsdString;
  /** toppedUp − spent − pending − held: what Redis must hold. */
  expectedBalance: MicroUsdString;
  /** The live balance in Redis; null when Redis does not hold the key. */
  redisBalance: MicroUsdString | null;
  /** redisBalance − expectedBalance ("0" when not loaded). */
  difference: MicroUsdString;
  status: KeyReconciliationStatus;
}

export interface SettlementReconciliation {
  /** Rows in x402_settlements, by purpose. */
  calls: number;
  topUps: number;
  /** Settlement records not in x402_settlements: still in Redis on their way to Postgres, or refused by it and kept aside for an operator. */
  queued: number;
  /** Settled payments that share a transaction or a payment identity with another (must be 0). */
  duplicates: number;
  /** x402 top-ups credited without a settlement record, by external reference (must be empty). */
  topUpsWithoutSettlement: string[];
  /** Top-up settlements that credited nothing, by network:transaction (paid, not credited: must be empty). */
  settlementsWithoutTopUp: string[];
  /** Request ids that more than one settlement names (callers choose x-request-id; a warning, not a failure). */
  sharedRequestIds: number;
}

export interface AdminReconcileReply {
  /** True when nothing differs and nothing is pending or held. */
  exact: boolean;
  keysChecked: number;
  /** Every key whose status is not `ok`/`not_loaded`. */
  differences: KeyReconciliation[];
  /** Debits in the ledger stream when the check ran. */
  ledgerBacklog: number;
  /** Credit holds open when the check ran (reserved, neither captured nor released yet). */
  openHolds: number;
  /** Totals over every key, µUSD. */
  totals: {
    toppedUp: MicroUsdString;
    spent: MicroUsdString;
    debits: number;
    pending: MicroUsdString;
    held: MicroUsdString;
    redisBalance: MicroUsdString;
  };
  settlements: SettlementReconciliation;
  checkedAt: string;
}

/** What a reconciliation found: the books exact, only debits still on their way to Postgres, or a real difference. */
export type ReconcileVerdict = 'exact' | 'pending' | 'differs';

/** Differences other than `pending` are real ones; settlements must match too. */
export function reconcileVerdict(reply: AdminReconcileReply): ReconcileVerdict {
  if (reply.exact) return 'exact';
  const s = reply.settlements;
  const settlementsDiffer =
    s.duplicates > 0 || s.topUpsWithoutSettlement.length > 0 || s.settlementsWithoutTopUp.length > 0;
  const keysDiffer = reply.differences.some((key) => key.status !== 'pending');
  return keysDiffer || settlementsDiffer ? 'differs' : 'pending';
}
