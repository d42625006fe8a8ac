import { randomUUID } from 'node:crypto';
import {
  type BalanceReply,
  type BatchItemResult,
  type CaptureReply,
  type DebitReply,
  type ReleaseReply,
  type ReserveReply,
  ErrorCode,
  parseBalanceRequest,
  parseChargeRequest,
  parseHoldRequest,
} from '@appcat/contracts';
import { handleBatchItems, WireException } from '@appcat/microservice';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { CreditStore, type DebitOutcome } from '../persistence/credit-store.js';
import { KeyRepository } from '../persistence/key-repository.js';
import { snapshotOf } from '../persistence/key-snapshot.js';
import { usingStores } from '../persistence/store-errors.js';
import { CREDIT_HOLD_MS, UNKNOWN_KEY_TTL_MS } from '../payments-tokens.js';

/** How often one key may be re-read from Postgres because its balance looked too low, ms. */
const RESYNC_INTERVAL_MS = 5_000;
/** A key that vanishes from Redis again right after being loaded means Redis is being wiped: give up. */
const MAX_ATTEMPTS = 3;

interface DebitInput {
  keyHash: string;
  amount: bigint;
  route: string;
}

/**
 * The per-call hot path: one Lua script in Redis per debit, reservation, capture or release. Postgres is
 * read only when Redis does not hold the key (first use, or after Redis lost its data) and, at most every
 * few seconds per key, when a balance looks too low, in case a top-up committed in Postgres never reached
 * Redis. A priced call reserves its price, then captures it on data in hand or releases it on failure;
 * a hold neither captured nor released is given back by the HoldSweeper after `holdMs`.
 */
@Injectable()
export class CreditService {
  private readonly logger = new Logger('CreditService');
  private readonly loading = new Map<string, Promise<'loaded' | 'unknown'>>();

  constructor(
    @Inject(CreditStore) private readonly store: CreditStore,
    @Inject(KeyRepository) private readonly keys: KeyRepository,
    @Inject(UNKNOWN_KEY_TTL_MS) private readonly unknownKeyTtlMs: number,
    @Inject(CREDIT_HOLD_MS) private readonly holdMs: number,
  ) {}

  /** One step, for data already in hand: the debit goes to the ledger at once. */
  async debit(request: unknown): Promise<DebitReply> {
    const input = parseChargeRequest(request);
    return usingStores('debit', async () => {
      const debitId = randomUUID();
      const balance = await this.spend(input, () =>
        this.store.debit(input.keyHash, { debitId, amount: input.amount, route: input.route, chargedAtMs: Date.now() }),
      );
      return { debitId, balance: balance.toString() };
    });
  }

  /** Holds the price until it is captured or released, or for `holdMs` at most. */
  async reserve(request: unknown): Promise<ReserveReply> {
    const input = parseChargeRequest(request);
    return usingStores('reserve', async () => {
      const hold = { ...input, reservationId: randomUUID() };
      const balance = await this.spend(input, () => this.store.reserve(hold, Date.now() + this.holdMs));
      return { reservationId: hold.reservationId, balance: balance.toString() };
    });
  }

  /** Spends a hold; one that lapsed is charged afresh if the balance allows, or refused with nothing charged. */
  async capture(request: unknown): Promise<CaptureReply> {
    const hold = parseHoldRequest(request);
    return usingStores('capture', async () => {
      const balance = await this.spend(hold, () => this.store.capture(hold, hold.route, Date.now()));
      return { debitId: hold.reservationId, balance: balance.toString() };
    });
  }

  async release(request: unknown): Promise<ReleaseReply> {
    const hold = parseHoldRequest(request);
    return usingStores('release', async () => ({ released: await this.store.release(hold) }));
  }

  /**
   * A batch subject (`payments.credits.*.batch`): each item handled exactly as alone, and answered on its
   * own (a bad item, an unknown key or an empty balance fails that item only). Every item's first script
   * is issued in the same turn, so they are in flight to Redis together (one round trip);
   * an item that needs more (its key loaded from Postgres, a low balance re-read) continues alone.
   */
  async batch<R>(request: unknown, handle: (item: unknown) => Promise<R>): Promise<BatchItemResult<R>[]> {
    return handleBatchItems(request, handle);
  }

  /**
   * Runs `attempt` (a debit, reservation or capture script) until it answers: loads a key Redis does not
   * hold, re-reads a low balance once; resolves with the balance left, or throws the refusal.
   */
  private async spend(input: DebitInput, attempt: () => Promise<DebitOutcome>): Promise<bigint> {
    let resynced = false;
    for (let tries = 0; tries < MAX_ATTEMPTS; tries += 1) {
      const outcome = await attempt();
      if (outcome.kind === 'ok') return outcome.balance;
      if (outcome.kind === 'missing') {
        if ((await this.load(input.keyHash)) === 'unknown') throw refusal({ kind: 'unknown' });
        continue;
      }
      if (outcome.kind === 'insufficient' && !resynced) {
        resynced = true;
        if (await this.resyncLowBalance(input.keyHash, input.amount)) continue;
      }
      throw refusal(outcome);
    }
    throw new Error('the key kept disappearing from Redis while being loaded');
  }

  async balance(request: unknown): Promise<BalanceReply> {
    const keyHash = parseBalanceRequest(request).keyHash;
    return usingStores('balance', async () => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
        const outcome = await this.store.balance(keyHash);
        if (outcome.kind === 'ok') return { balance: outcome.balance.toString() };
        if (outcome.kind !== 'missing') throw refusal(outcome);
        if ((await this.load(keyHash)) === 'unknown') throw refusal({ kind: 'unknown' });
      }
      throw new Error('the key kept disappearing from Redis while being loaded');
    });
  }

  /**
   * Copies a key from Postgres into Redis, or remembers briefly that Postgres does not know it. Calls for
   * the same key share one load per replica; across replicas the sync script makes concurrent loads safe.
   */
  private load(keyHash: string): Promise<'loaded' | 'unknown'> {
    let pending = this.loading.get(keyHash);
    if (!pending) {
      pending = (async () => {
        const key = await this.keys.findByHash(keyHash);
        if (!key) {
          await this.store.markUnknown(keyHash, this.unknownKeyTtlMs);
          return 'unknown' as const;
        }
        await this.store.sync(keyHash, snapshotOf(key));
        return 'loaded' as const;
      })().finally(() => this.loading.delete(keyHash));
      this.loading.set(keyHash, pending);
    }
    return pending;
  }

  /**
   * True when Postgres knew of top-ups that Redis had missed and the call can now be paid. Best effort:
   * if Postgres cannot be asked, the answer stays "insufficient", which is what Redis said.
   */
  private async resyncLowBalance(keyHash: string, amount: bigint): Promise<boolean> {
    try {
      if (!(await this.store.claimResync(keyHash, RESYNC_INTERVAL_MS))) return false;
      const key = await this.keys.findByHash(keyHash);
      if (!key) return false;
      const synced = await this.store.sync(keyHash, snapshotOf(key));
      return !synced.revoked && synced.balance >= amount;
    } catch (error) {
      this.logger.warn(`could not re-read a low balance from Postgres: ${(error as Error).message}`);
      return false;
    }
  }
}

function refusal(outcome: Exclude<DebitOutcome, { kind: 'ok' } | { kind: 'missing' }>): WireException {
  switch (outcome.kind) {
    case 'unknown':
      return new WireException(ErrorCode.CreditKeyUnknown, 'unknown API key');
    case 'revoked':
      return new WireException(ErrorCode.CreditKeyRevoked, 'API key revoked');
    case 'insufficient':
      return new WireException(ErrorCode.CreditInsufficient, 'topup_required');
  }
}
