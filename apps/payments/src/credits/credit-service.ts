import { randomUUID } from 'node:crypto';
import {
  type BalanceReply,
  type BatchItemResult,
  type DebitReply,
  ErrorCode,
  MAX_BATCH_ITEMS,
  MAX_TOPUP_MICROS,
  parseMicros,
  type WireError,
} from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { KEY_HASH_PATTERN } from '../keys/api-key.js';
import { KeyRepository, snapshotOf } from '../keys/key-repository.js';
import { UNKNOWN_KEY_TTL_MS } from '../payments-tokens.js';
import { CreditStore, type DebitOutcome } from './credit-store.js';
import { invalidArgument, usingStores } from './store-errors.js';

/** How often one key may be re-read from Postgres because its balance looked too low, ms. */
const RESYNC_INTERVAL_MS = 5_000;
/** A key that vanishes from Redis again right after being loaded means Redis is being wiped: give up. */
const MAX_ATTEMPTS = 3;
const MAX_ROUTE_LENGTH = 128;

interface DebitInput {
  keyHash: string;
  amount: bigint;
  route: string;
}

/**
 * The per-call hot path: one Lua script in Redis per debit. Postgres is read only when Redis does not
 * hold the key (first use, or after Redis lost its data) and, at most every few seconds per key, when a
 * balance looks too low, in case a top-up committed in Postgres never reached Redis.
 */
@Injectable()
export class CreditService {
  private readonly logger = new Logger('CreditService');
  private readonly loading = new Map<string, Promise<'loaded' | 'unknown'>>();

  constructor(
    @Inject(CreditStore) private readonly store: CreditStore,
    @Inject(KeyRepository) private readonly keys: KeyRepository,
    @Inject(UNKNOWN_KEY_TTL_MS) private readonly unknownKeyTtlMs: number,
  ) {}

  async debit(request: unknown): Promise<DebitReply> {
    const input = readDebitRequest(request);
    return usingStores('debit', () => this.debitValid(input));
  }

  /**
   * `payments.credits.debit.batch`: each item debited exactly as {@link debit} would, and answered on
   * its own (a bad item, an unknown key or an empty balance fails that item only). The first attempt of
   * every valid item goes to Redis in one pipelined round trip; an item that needs more (its key loaded
   * from Postgres, a low balance re-read) continues alone on the single-debit path.
   */
  async debitBatch(request: unknown): Promise<BatchItemResult<DebitReply>[]> {
    const items = (request as { items?: unknown } | null)?.items;
    if (!Array.isArray(items) || items.length === 0 || items.length > MAX_BATCH_ITEMS) {
      throw invalidArgument(`items must be an array of 1 to ${MAX_BATCH_ITEMS} debit requests`);
    }
    const inputs = items.map((item): DebitInput | WireException => {
      try {
        return readDebitRequest(item);
      } catch (error) {
        return error as WireException;
      }
    });
    const valid = inputs.flatMap((input, index) => (input instanceof WireException ? [] : [{ index, input }]));
    const firstTries = valid.map(({ input }) => ({
      keyHash: input.keyHash,
      debit: { debitId: randomUUID(), amount: input.amount, route: input.route, chargedAtMs: Date.now() },
    }));
    let outcomes: Array<DebitOutcome | Error>;
    try {
      outcomes = firstTries.length === 0 ? [] : await this.store.debitMany(firstTries);
    } catch (error) {
      // The round trip itself failed: every item reports it through usingStores, as a lone debit would.
      outcomes = firstTries.map(() => error as Error);
    }
    const positionOf = new Map(valid.map(({ index }, position) => [index, position]));
    const results = inputs.map((input, index): Promise<BatchItemResult<DebitReply>> => {
      const position = positionOf.get(index);
      if (input instanceof WireException || position === undefined) return Promise.resolve(failed(input));
      const outcome = outcomes[position];
      const { debitId } = firstTries[position].debit;
      return usingStores('debit', () =>
        outcome instanceof Error ? Promise.reject(outcome) : this.debitValid(input, { debitId, outcome }),
      ).then(
        (value): BatchItemResult<DebitReply> => ({ ok: true, value }),
        (error: unknown) => failed(error),
      );
    });
    return Promise.all(results);
  }

  /** Debits a validated request; `firstTry` is the outcome of an attempt already made (in a batch). */
  private async debitValid(
    input: DebitInput,
    firstTry?: { debitId: string; outcome: DebitOutcome },
  ): Promise<DebitReply> {
    let resynced = false;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const tried = attempt === 0 ? firstTry : undefined;
      const debitId = tried?.debitId ?? randomUUID();
      const outcome =
        tried?.outcome ??
        (await this.store.debit(input.keyHash, {
          debitId,
          amount: input.amount,
          route: input.route,
          chargedAtMs: Date.now(),
        }));
      if (outcome.kind === 'ok') return { debitId, balance: outcome.balance.toString() };
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
    const keyHash = readKeyHash(request);
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

/** An item's failure as its batch result: a typed refusal as it is, anything else as INTERNAL. */
function failed(error: unknown): BatchItemResult<never> {
  if (error instanceof WireException) return { ok: false, error: error.getError() as WireError };
  return { ok: false, error: { code: ErrorCode.Internal, message: 'internal error' } };
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

function readKeyHash(request: unknown): string {
  const keyHash = (request as { keyHash?: unknown } | null)?.keyHash;
  if (typeof keyHash !== 'string' || !KEY_HASH_PATTERN.test(keyHash)) {
    throw invalidArgument('keyHash must be the SHA-256 of the key in lowercase hex');
  }
  return keyHash;
}

function readDebitRequest(request: unknown): DebitInput {
  const keyHash = readKeyHash(request);
  const { amount, route } = request as { amount?: unknown; route?: unknown };
  let micros: bigint;
  try {
    micros = parseMicros(amount as string);
  } catch {
    throw invalidArgument('amount must be a micro-USD integer string');
  }
  if (micros <= 0n || micros > MAX_TOPUP_MICROS) throw invalidArgument('amount is out of range');
  if (typeof route !== 'string' || route.length === 0 || route.length > MAX_ROUTE_LENGTH) {
    throw invalidArgument(`route must be a string of 1 to ${MAX_ROUTE_LENGTH} characters`);
  }
  return { keyHash, amount: micros, route };
}
