import {
  type AdminReconcileReply,
  type AdminReconcileRequest,
  ErrorCode,
  type KeyReconciliation,
  type KeyReconciliationStatus,
  PRICE_PER_CALL_MICROS,
  type SettlementReconciliation,
} from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import type { RedisClient } from '@appcat/redis';
import { Inject, Injectable } from '@nestjs/common';
import { type CreditHold, CreditStore } from '../persistence/credit-store.js';
import { HoldSweeper } from '../credits/hold-sweeper.js';
import { parseLedgerEntry } from '../ledger/ledger-batch.js';
import { LedgerRepository } from '../persistence/ledger-repository.js';
import { SettlementRepository } from '../persistence/settlement-repository.js';
import { PAYMENTS_REDIS } from '../payments-tokens.js';
import { SettlementRecords } from '../x402/settlement-records.js';

const DEFAULT_WAIT_MS = 10_000;
const POLL_MS = 200;
/** A check that found differences is repeated this often before they are reported (a flush may have been mid-way). */
const ATTEMPTS = 3;
const STREAM_PAGE = 1_000;

/**
 * Proves the books (docs/credits.md "Reconciliation"): per key, Postgres's totals equal their rows and
 * Redis's balance equals top-ups − spent − debits on their way − open holds; every x402 top-up has its
 * settlement and back, none settled twice. Waits for the write-behind first, so a quiet system is exact.
 */
@Injectable()
export class Reconciliation {
  constructor(
    @Inject(LedgerRepository) private readonly ledger: LedgerRepository,
    @Inject(PAYMENTS_REDIS) private readonly redis: RedisClient,
    /** Also names the ledger's shards, each checked on its own (on a Redis Cluster they live on different primaries). */
    @Inject(CreditStore) private readonly store: CreditStore,
    @Inject(SettlementRecords) private readonly settlements: SettlementRecords,
    @Inject(SettlementRepository) private readonly settlementRows: SettlementRepository,
    @Inject(HoldSweeper) private readonly holds: HoldSweeper,
  ) {}

  async run(request: AdminReconcileRequest | undefined): Promise<AdminReconcileReply> {
    const deadline = Date.now() + (request?.waitMs ?? DEFAULT_WAIT_MS);
    for (;;) {
      try {
        return await this.reconcileBy(deadline);
      } catch (error) {
        if (error instanceof WireException) throw error;
        // A store refusing commands for a moment (a Redis primary's replica taking over, the client
        // learning the new owner of a slot) is tried again within the caller's wait, not reported.
        if (Date.now() + POLL_MS >= deadline) {
          throw new WireException(
            ErrorCode.CreditStoreUnavailable,
            `reconciliation needs Redis and Postgres: ${(error as Error).message}`,
          );
        }
        await sleep(POLL_MS);
      }
    }
  }

  private async reconcileBy(deadline: number): Promise<AdminReconcileReply> {
    await this.waitForWriteBehind(deadline);
    let reply = await this.check();
    for (let attempt = 1; attempt < ATTEMPTS && !reply.exact && Date.now() < deadline; attempt++) {
      await sleep(Math.min(1_000, Math.max(0, deadline - Date.now())));
      // A top-up credited in Postgres may be a moment ahead of its settlement record, still in Redis.
      await this.settlements.drainPending().catch(() => undefined);
      reply = await this.check();
    }
    return reply;
  }

  /**
   * Until the ledger's streams, the queued settlement records and the credit holds are empty (moving the
   * records and giving back lapsed holds itself), or the deadline.
   */
  private async waitForWriteBehind(deadline: number): Promise<void> {
    await this.settlements.flush();
    for (;;) {
      await this.settlements.drainPending().catch(() => undefined);
      await this.holds.sweep();
      const [ledger, queued, held] = await Promise.all([
        this.ledgerLength(),
        this.settlements.pendingCount(),
        this.openHolds(),
      ]);
      if ((ledger === 0 && queued === 0 && held.length === 0) || Date.now() >= deadline) return;
      await sleep(POLL_MS);
    }
  }

  private async check(): Promise<AdminReconcileReply> {
    const keys = await this.ledger.keyTotals(PRICE_PER_CALL_MICROS);
    const settlements = await this.checkSettlements();
    const pendingByKey = await this.pendingDebits();
    const holds = await this.openHolds();
    const heldByKey = new Map<string, bigint>();
    for (const hold of holds) heldByKey.set(hold.keyHash, (heldByKey.get(hold.keyHash) ?? 0n) + hold.amount);
    const balances = await this.store.peekBalances(keys.map((key) => key.key_hash));

    const differences: KeyReconciliation[] = [];
    const totals = { toppedUp: 0n, spent: 0n, debits: 0, pending: 0n, held: 0n, redisBalance: 0n };
    let ledgerBacklog = 0;
    for (const count of pendingByKey.values()) ledgerBacklog += count.entries;
    for (const key of keys) {
      const toppedUp = BigInt(key.topped_up_micros);
      const spent = BigInt(key.spent_micros);
      const pending = pendingByKey.get(key.id)?.amount ?? 0n;
      const held = heldByKey.get(key.key_hash) ?? 0n;
      const expected = toppedUp - spent - pending - held;
      const redis = balances.get(key.key_hash) ?? null;
      const difference = redis === null ? 0n : redis - expected;
      let status: KeyReconciliationStatus;
      if (toppedUp !== BigInt(key.top_up_rows) || spent !== BigInt(key.debit_rows) || key.off_price_debits !== '0')
        status = 'postgres_mismatch';
      else if (redis === null) status = 'not_loaded';
      else if (difference > 0n) status = 'forgiven';
      else if (difference < 0n) status = 'short';
      else status = pending > 0n || held > 0n ? 'pending' : 'ok';

      totals.toppedUp += toppedUp;
      totals.spent += spent;
      totals.debits += Number(key.debits);
      totals.pending += pending;
      totals.held += held;
      totals.redisBalance += redis ?? 0n;
      if (status === 'ok' || status === 'not_loaded') continue;
      differences.push({
        id: key.id,
        prefix: key.prefix,
        toppedUp: toppedUp.toString(),
        topUpRows: key.top_up_rows,
        spent: spent.toString(),
        debitRows: key.debit_rows,
        debits: Number(key.debits),
        pending: pending.toString(),
        held: held.toString(),
        expectedBalance: expected.toString(),
        redisBalance: redis === null ? null : redis.toString(),
        difference: difference.toString(),
        status,
      });
    }
    const settlementsExact =
      settlements.duplicates === 0 &&
      settlements.queued === 0 &&
      settlements.topUpsWithoutSettlement.length === 0 &&
      settlements.settlementsWithoutTopUp.length === 0;
    return {
      exact: differences.length === 0 && ledgerBacklog === 0 && holds.length === 0 && settlementsExact,
      keysChecked: keys.length,
      differences,
      ledgerBacklog,
      openHolds: holds.length,
      totals: {
        toppedUp: totals.toppedUp.toString(),
        spent: totals.spent.toString(),
        debits: totals.debits,
        pending: totals.pending.toString(),
        held: totals.held.toString(),
        redisBalance: totals.redisBalance.toString(),
      },
      settlements,
      checkedAt: new Date().toISOString(),
    };
  }

  private async openHolds(): Promise<CreditHold[]> {
    const shards = await Promise.all(this.store.keyspace.holdSets.map((holdSet) => this.store.openHolds(holdSet)));
    return shards.flat();
  }

  private async ledgerLength(): Promise<number> {
    const lengths = await Promise.all(this.store.keyspace.streams.map((stream) => this.redis.xlen(stream)));
    return lengths.reduce((sum, length) => sum + length, 0);
  }

  /** Debits still in the ledger's streams, by key id. */
  private async pendingDebits(): Promise<Map<string, { amount: bigint; entries: number }>> {
    const byKey = new Map<string, { amount: bigint; entries: number }>();
    for (const stream of this.store.keyspace.streams) await this.addPendingDebits(stream, byKey);
    return byKey;
  }

  private async addPendingDebits(
    stream: string,
    byKey: Map<string, { amount: bigint; entries: number }>,
  ): Promise<void> {
    let start = '-';
    for (;;) {
      const page = (await this.redis.xrange(stream, start, '+', 'COUNT', STREAM_PAGE)) as [string, string[]][];
      for (const [id, fields] of page) {
        const debit = parseLedgerEntry(id, fields);
        if (!debit) continue;
        const entry = byKey.get(debit.keyId) ?? { amount: 0n, entries: 0 };
        entry.amount += debit.amount;
        entry.entries += 1;
        byKey.set(debit.keyId, entry);
      }
      if (page.length < STREAM_PAGE) return;
      start = `(${page[page.length - 1][0]}`;
    }
  }

  private async checkSettlements(): Promise<SettlementReconciliation> {
    const row = await this.settlementRows.reconciliationCounts();
    return {
      calls: row.calls,
      topUps: row.top_ups,
      // Waiting for Postgres, or refused by it and kept aside: either way not in x402_settlements.
      queued: (await this.settlements.pendingCount()) + (await this.settlements.rejectedCount()),
      duplicates: row.duplicates,
      topUpsWithoutSettlement: row.top_ups_without_settlement,
      settlementsWithoutTopUp: row.settlements_without_top_up,
      sharedRequestIds: row.shared_request_ids,
    };
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
