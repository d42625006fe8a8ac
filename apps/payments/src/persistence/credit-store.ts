import type { RedisClient } from '@appcat/redis';
import { Inject, Injectable } from '@nestjs/common';
import { PAYMENTS_REDIS } from '../payments-tokens.js';
import { CreditKeyspace } from './credit-keyspace.js';
import { balanceFromSnapshot, type KeySnapshot } from './key-snapshot.js';
import {
  BALANCE_SCRIPT,
  CAPTURE_SCRIPT,
  DEBIT_SCRIPT,
  MARK_UNKNOWN_SCRIPT,
  RELEASE_SCRIPT,
  RESERVE_SCRIPT,
  SYNC_SCRIPT,
} from './credit-scripts.js';

/** What Redis knows about a key, as of one script run. */
export type DebitOutcome =
  | { kind: 'ok'; balance: bigint }
  | { kind: 'insufficient'; balance: bigint }
  | { kind: 'revoked' }
  | { kind: 'unknown' }
  /** Redis does not hold the key (never loaded, or lost): load it from Postgres and try again. */
  | { kind: 'missing' };

export type BalanceOutcome = Exclude<DebitOutcome, { kind: 'insufficient' }>;

export interface SyncedKey {
  balance: bigint;
  toppedUp: bigint;
  revoked: boolean;
}

export interface LedgerDebit {
  debitId: string;
  amount: bigint;
  route: string;
  chargedAtMs: number;
}

/** One call's price held on a key: reserved, not yet spent. */
export interface CreditHold {
  keyHash: string;
  reservationId: string;
  amount: bigint;
}

/**
 * A hold as its shard's sorted set keeps it: the member names the key and the amount, so the sweeper
 * can give it back knowing nothing else. Key hashes are hex and reservation ids UUIDs: no `:` inside.
 */
export function holdMember(hold: CreditHold): string {
  return `${hold.keyHash}:${hold.reservationId}:${hold.amount}`;
}

export function parseHoldMember(member: string): CreditHold | undefined {
  const [keyHash, reservationId, amount, extra] = member.split(':');
  if (extra !== undefined || !keyHash || !reservationId || !/^[1-9][0-9]*$/.test(amount ?? '')) return undefined;
  return { keyHash, reservationId, amount: BigInt(amount) };
}

interface CreditCommands {
  creditReserve(
    keyHashKey: string,
    unknownKey: string,
    holds: string,
    amount: string,
    member: string,
    deadlineMs: string,
  ): Promise<string[]>;
  creditCapture(
    keyHashKey: string,
    unknownKey: string,
    holds: string,
    stream: string,
    amount: string,
    member: string,
    debitId: string,
    route: string,
    at: string,
  ): Promise<string[]>;
  creditRelease(keyHashKey: string, holds: string, member: string, amount: string): Promise<number>;
  creditDebit(
    keyHashKey: string,
    unknownKey: string,
    stream: string,
    amount: string,
    debitId: string,
    route: string,
    at: string,
  ): Promise<string[]>;
  creditBalance(keyHashKey: string, unknownKey: string): Promise<string[]>;
  creditSync(
    keyHashKey: string,
    unknownKey: string,
    id: string,
    balance: string,
    toppedUp: string,
    revoked: string,
  ): Promise<(string | null)[]>;
  creditMarkUnknown(keyHashKey: string, unknownKey: string, ttlMs: string): Promise<number>;
}

/**
 * The hot balances in Redis. Every operation is one Lua script, so a check and the change it allows
 * can never be separated by another replica's request.
 */
@Injectable()
export class CreditStore {
  private readonly redis: RedisClient & CreditCommands;

  constructor(
    @Inject(PAYMENTS_REDIS) redis: RedisClient,
    /** Key names: a key's hash, marker and ledger stream share one hash slot. */
    @Inject(CreditKeyspace) readonly keyspace: CreditKeyspace,
  ) {
    redis.defineCommand('creditDebit', { numberOfKeys: 3, lua: DEBIT_SCRIPT });
    redis.defineCommand('creditReserve', { numberOfKeys: 3, lua: RESERVE_SCRIPT });
    redis.defineCommand('creditCapture', { numberOfKeys: 4, lua: CAPTURE_SCRIPT });
    redis.defineCommand('creditRelease', { numberOfKeys: 2, lua: RELEASE_SCRIPT });
    redis.defineCommand('creditBalance', { numberOfKeys: 2, lua: BALANCE_SCRIPT });
    redis.defineCommand('creditSync', { numberOfKeys: 2, lua: SYNC_SCRIPT });
    redis.defineCommand('creditMarkUnknown', { numberOfKeys: 2, lua: MARK_UNKNOWN_SCRIPT });
    this.redis = redis as RedisClient & CreditCommands;
  }

  /** Takes `debit.amount` from the balance unless that would go below zero, and logs it to the ledger. */
  async debit(keyHash: string, debit: LedgerDebit): Promise<DebitOutcome> {
    const reply = await this.redis.creditDebit(
      this.keyspace.keyOf(keyHash),
      this.keyspace.unknownMarkerOf(keyHash),
      this.keyspace.streamOf(keyHash),
      debit.amount.toString(),
      debit.debitId,
      debit.route,
      String(debit.chargedAtMs),
    );
    return parseOutcome(reply) as DebitOutcome;
  }

  /** Holds `hold.amount` on the key until `deadlineMs` unless that would take the balance below zero. */
  async reserve(hold: CreditHold, deadlineMs: number): Promise<DebitOutcome> {
    const reply = await this.redis.creditReserve(
      this.keyspace.keyOf(hold.keyHash),
      this.keyspace.unknownMarkerOf(hold.keyHash),
      this.keyspace.holdsOf(hold.keyHash),
      hold.amount.toString(),
      holdMember(hold),
      String(deadlineMs),
    );
    return parseOutcome(reply) as DebitOutcome;
  }

  /** Spends a hold: the ledger gets the debit (its id the reservation's); a lapsed hold is charged afresh. */
  async capture(hold: CreditHold, route: string, chargedAtMs: number): Promise<DebitOutcome> {
    const reply = await this.redis.creditCapture(
      this.keyspace.keyOf(hold.keyHash),
      this.keyspace.unknownMarkerOf(hold.keyHash),
      this.keyspace.holdsOf(hold.keyHash),
      this.keyspace.streamOf(hold.keyHash),
      hold.amount.toString(),
      holdMember(hold),
      hold.reservationId,
      route,
      String(chargedAtMs),
    );
    return parseOutcome(reply) as DebitOutcome;
  }

  /** Gives a hold back; false when it was already captured or released. */
  async release(hold: CreditHold): Promise<boolean> {
    const released = await this.redis.creditRelease(
      this.keyspace.keyOf(hold.keyHash),
      this.keyspace.holdsOf(hold.keyHash),
      holdMember(hold),
      hold.amount.toString(),
    );
    return released === 1;
  }

  /** Up to `limit` holds of one shard whose deadline is at or before `nowMs`. */
  async lapsedHolds(holdSet: string, nowMs: number, limit: number): Promise<CreditHold[]> {
    const members = await this.redis.zrangebyscore(holdSet, '-inf', String(nowMs), 'LIMIT', 0, limit);
    return members.flatMap((member) => parseHoldMember(member) ?? []);
  }

  /** Every open hold of one shard. */
  async openHolds(holdSet: string): Promise<CreditHold[]> {
    const members = await this.redis.zrange(holdSet, '0', '-1');
    return members.flatMap((member) => parseHoldMember(member) ?? []);
  }

  async balance(keyHash: string): Promise<BalanceOutcome> {
    const reply = await this.redis.creditBalance(this.keyspace.keyOf(keyHash), this.keyspace.unknownMarkerOf(keyHash));
    return parseOutcome(reply) as BalanceOutcome;
  }

  /** Merges a Postgres snapshot of the key into Redis (see SYNC_SCRIPT for why any order converges). */
  async sync(keyHash: string, snapshot: KeySnapshot): Promise<SyncedKey> {
    const [balance, toppedUp, revoked] = await this.redis.creditSync(
      this.keyspace.keyOf(keyHash),
      this.keyspace.unknownMarkerOf(keyHash),
      snapshot.id,
      balanceFromSnapshot(snapshot).toString(),
      snapshot.toppedUp.toString(),
      snapshot.revoked ? '1' : '0',
    );
    return { balance: BigInt(balance ?? '0'), toppedUp: BigInt(toppedUp ?? '0'), revoked: revoked === '1' };
  }

  async markUnknown(keyHash: string, ttlMs: number): Promise<void> {
    if (ttlMs <= 0) return;
    await this.redis.creditMarkUnknown(
      this.keyspace.keyOf(keyHash),
      this.keyspace.unknownMarkerOf(keyHash),
      String(ttlMs),
    );
  }

  /** Live balances of the keys Redis holds; absent for the others. */
  async peekBalances(keyHashes: string[]): Promise<Map<string, bigint>> {
    const balances = new Map<string, bigint>();
    if (keyHashes.length === 0) return balances;
    // One command each, not a pipeline: on a Redis Cluster a pipeline must stay in one slot. Sent
    // together, the client still batches them (per node when clustered).
    const replies = await Promise.all(keyHashes.map((keyHash) => this.redis.hget(this.keyspace.keyOf(keyHash), 'bal')));
    replies.forEach((value, index) => {
      if (typeof value === 'string') balances.set(keyHashes[index], BigInt(value));
    });
    return balances;
  }

  /** Claims the right to re-read a key from Postgres for `ttlMs`; false if someone claimed it already. */
  async claimResync(keyHash: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(this.keyspace.resyncMarkerOf(keyHash), '1', 'PX', ttlMs, 'NX')) === 'OK';
  }
}

function parseOutcome(reply: (string | null)[]): DebitOutcome {
  const [kind, balance] = reply;
  switch (kind) {
    case 'ok':
    case 'insufficient':
      return { kind, balance: BigInt(balance as string) };
    case 'revoked':
    case 'unknown':
    case 'missing':
      return { kind };
    default:
      throw new Error(`unexpected credit script reply ${JSON.stringify(kind)}`);
  }
}
