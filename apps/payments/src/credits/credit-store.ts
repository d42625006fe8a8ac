import type { RedisClient } from '@appcat/redis';
import { Inject, Injectable } from '@nestjs/common';
import { PAYMENTS_REDIS } from '../payments-tokens.js';
import { CreditKeyspace } from './credit-keyspace.js';
import { BALANCE_SCRIPT, DEBIT_SCRIPT, MARK_UNKNOWN_SCRIPT, SYNC_SCRIPT } from './credit-scripts.js';

/** What Redis knows about a key, as of one script run. */
export type DebitOutcome =
  | { kind: 'ok'; balance: bigint }
  | { kind: 'insufficient'; balance: bigint }
  | { kind: 'revoked' }
  | { kind: 'unknown' }
  /** Redis does not hold the key (never loaded, or lost): load it from Postgres and try again. */
  | { kind: 'missing' };

export type BalanceOutcome = Exclude<DebitOutcome, { kind: 'insufficient' }>;

/** A key's state read from Postgres in one snapshot. */
export interface KeySnapshot {
  id: string;
  toppedUp: bigint;
  spent: bigint;
  revoked: boolean;
}

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

interface CreditCommands {
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

/** Balance Postgres implies for a key Redis does not hold; never below zero (see docs/credits.md). */
export function balanceFromSnapshot(snapshot: Pick<KeySnapshot, 'toppedUp' | 'spent'>): bigint {
  const balance = snapshot.toppedUp - snapshot.spent;
  return balance > 0n ? balance : 0n;
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

  /**
   * Several debits in one round trip: one DEBIT_SCRIPT call per item, issued in the same turn on the
   * auto-pipelined connection, so ioredis sends them as one pipeline (one per node on a Redis Cluster,
   * where an explicit pipeline must stay in one slot). Each debit is as atomic as alone, and two items
   * of one key are applied in order. An item whose script failed comes back as its Error; the others stand.
   */
  async debitMany(debits: Array<{ keyHash: string; debit: LedgerDebit }>): Promise<Array<DebitOutcome | Error>> {
    return Promise.all(
      debits.map(({ keyHash, debit }) =>
        this.debit(keyHash, debit).catch((error: unknown) =>
          error instanceof Error ? error : new Error(String(error)),
        ),
      ),
    );
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
