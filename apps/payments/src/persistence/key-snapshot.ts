import type { ApiKey } from '../generated/prisma/client.js';

/** A key's state read from Postgres in one snapshot. */
export interface KeySnapshot {
  id: string;
  toppedUp: bigint;
  spent: bigint;
  revoked: boolean;
}

export function snapshotOf(key: ApiKey): KeySnapshot {
  return { id: key.id, toppedUp: key.toppedUpMicros, spent: key.spentMicros, revoked: key.revokedAt !== null };
}

/** Balance Postgres implies for a key Redis does not hold; never below zero (see docs/credits.md). */
export function balanceFromSnapshot(snapshot: Pick<KeySnapshot, 'toppedUp' | 'spent'>): bigint {
  const balance = snapshot.toppedUp - snapshot.spent;
  return balance > 0n ? balance : 0n;
}
