import { randomUUID } from 'node:crypto';
import {
  type AdminKeyCreated,
  type AdminKeyDetails,
  type AdminKeyList,
  type AdminKeyOrder,
  type AdminKeySummary,
  ErrorCode,
  MAX_TOPUP_MICROS,
  MIN_TOPUP_MICROS,
} from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { CreditStore } from '../persistence/credit-store.js';
import { balanceFromSnapshot, snapshotOf } from '../persistence/key-snapshot.js';
import { invalidArgument, usingStores } from '../persistence/store-errors.js';
import { classifyKeyRef, issueApiKey } from './api-key.js';
import {
  type ApiKey,
  KeyRepository,
  type TopUp,
  type TopUpMethod,
  type TopUpResult,
} from '../persistence/key-repository.js';

const MAX_NOTE_LENGTH = 500;
const MAX_EXTERNAL_REF_LENGTH = 200;

export interface TopUpOutcome {
  topUp: TopUp;
  /** False when the external reference had already been credited: nothing was added this time. */
  credited: boolean;
  /** The key's live balance after the top-up. */
  balance: bigint;
}

/**
 * Keys and their credit, for admins and for top-ups. Postgres is written first; Redis is then brought
 * in line with the sync script, so a change is never visible in Redis before it is durable.
 */
@Injectable()
export class KeyService {
  private readonly logger = new Logger('KeyService');

  constructor(
    @Inject(KeyRepository) private readonly keys: KeyRepository,
    @Inject(CreditStore) private readonly store: CreditStore,
  ) {}

  async create({ credit, note }: AdminKeyOrder): Promise<AdminKeyCreated> {
    return this.issue(
      credit > 0n ? { amount: credit, method: 'admin', externalRef: `admin:${randomUUID()}`, note } : null,
    );
  }

  /**
   * Issues a new key, with its opening top-up in the same transaction (an admin grant, or the x402
   * payment that bought it: the payment's reference is unique, so it can never open two keys).
   */
  async issue(
    opening: { amount: bigint; method: TopUpMethod; externalRef: string; note?: string } | null,
  ): Promise<AdminKeyCreated> {
    const amount = opening?.amount ?? 0n;
    const issued = issueApiKey();
    const key = await usingStores('create key', () => this.keys.createKey(issued, opening));
    // Only warms Redis: the key is durable now and loads itself on first use if this fails, and the
    // reply must not be lost, as it is the only copy of the key.
    await this.store.sync(issued.keyHash, snapshotOf(key)).catch((error: unknown) => {
      this.logger.warn(`new key ${key.id} not preloaded into Redis: ${(error as Error).message}`);
    });
    return { key: issued.key, id: key.id, prefix: key.prefix, balance: amount.toString() };
  }

  /**
   * Credits a key: the one way credit is added, for admins and x402 payments alike. `externalRef` names
   * the payment; a reference already credited credits nothing again (and is reported as such), so a
   * retry after any failure is safe.
   */
  async topUp(
    keyId: string,
    amount: bigint,
    method: TopUpMethod,
    externalRef: string,
    note?: string,
  ): Promise<TopUpOutcome> {
    checkTopUp(amount, method);
    checkReference(externalRef);
    return usingStores('top-up', async () =>
      this.outcome(await this.keys.topUp({ keyId, amount, method, externalRef, note: readNote(note) }), {
        keyId,
        amount,
        method,
      }),
    );
  }

  /**
   * Recharges a key with an x402 payment of `amount` that `pay` settles while the key is held against
   * revocation (a revocation waits for it): an unknown or revoked key is refused before `pay` runs, and
   * once it has run the key receives what it paid.
   */
  async rechargeHeld(
    keyId: string,
    amount: bigint,
    pay: () => Promise<{ externalRef: string; note: string }>,
  ): Promise<TopUpOutcome> {
    checkTopUp(amount, 'x402');
    return usingStores('top-up', async () => {
      const result = await this.keys.rechargeHeld(keyId, async () => {
        const paid = await pay();
        checkReference(paid.externalRef);
        return { amount, method: 'x402', externalRef: paid.externalRef, note: readNote(paid.note) };
      });
      return this.outcome(result, { keyId, amount, method: 'x402' });
    });
  }

  /** What a top-up came to; a reference already used is refused unless it was this very top-up. */
  private async outcome(
    result: TopUpResult,
    meant: { keyId: string; amount: bigint; method: TopUpMethod },
  ): Promise<TopUpOutcome> {
    switch (result.kind) {
      case 'key-not-found':
        throw new WireException(ErrorCode.CreditKeyUnknown, 'unknown API key');
      case 'key-revoked':
        throw new WireException(ErrorCode.CreditKeyRevoked, 'API key revoked');
      case 'duplicate': {
        const { topUp } = result;
        const same =
          topUp.apiKeyId === meant.keyId && topUp.amountMicros === meant.amount && topUp.method === meant.method;
        if (!same) throw invalidArgument('external reference already used by another top-up');
        break;
      }
    }
    // Also on a duplicate: the first attempt may have committed and then failed to reach Redis.
    const synced = await this.store.sync(result.key.keyHash, snapshotOf(result.key));
    return { topUp: result.topUp, credited: result.kind === 'credited', balance: synced.balance };
  }

  /** The key with this hash, refusing unknown and revoked keys (e.g. before taking a recharge payment). */
  async requireActive(keyHash: string): Promise<ApiKey> {
    const key = await usingStores('find key', () => this.keys.findByHash(keyHash));
    if (!key) throw new WireException(ErrorCode.CreditKeyUnknown, 'unknown API key');
    if (key.revokedAt) throw new WireException(ErrorCode.CreditKeyRevoked, 'API key revoked');
    return key;
  }

  async revoke(ref: string): Promise<AdminKeyDetails> {
    return usingStores('revoke key', async () => {
      const found = await this.resolve(ref);
      const key = (await this.keys.revoke(found.id)) ?? found;
      // Postgres first: a reload after a Redis loss then already sees the key revoked.
      const synced = await this.store.sync(key.keyHash, snapshotOf(key));
      return this.details(key, synced.balance);
    });
  }

  async show(ref: string): Promise<AdminKeyDetails> {
    return usingStores('show key', async () => {
      const key = await this.resolve(ref);
      const live = await this.store.peekBalances([key.keyHash]);
      return this.details(key, live.get(key.keyHash) ?? balanceFromSnapshot(snapshotOf(key)));
    });
  }

  async list(): Promise<AdminKeyList> {
    return usingStores('list keys', async () => {
      const keys = await this.keys.list();
      const live = await this.store.peekBalances(keys.map((key) => key.keyHash));
      return { keys: keys.map((key) => summaryOf(key, live.get(key.keyHash) ?? balanceFromSnapshot(snapshotOf(key)))) };
    });
  }

  private async details(key: ApiKey, balance: bigint): Promise<AdminKeyDetails> {
    const topUps = await this.keys.topUpsOf(key.id);
    return {
      ...summaryOf(key, balance),
      topUps: topUps.map((topUp) => ({
        id: topUp.id,
        amount: topUp.amountMicros.toString(),
        method: topUp.method,
        reference: topUp.externalRef,
        createdAt: topUp.createdAt.toISOString(),
      })),
    };
  }

  /** The key an admin named by full key, display prefix or id. */
  private async resolve(ref: string): Promise<ApiKey> {
    const parsed = classifyKeyRef(ref);
    let matches: ApiKey[];
    switch (parsed.kind) {
      case 'invalid':
        throw invalidArgument('name a key by the key itself, its display prefix (ak_…) or its id');
      case 'key':
        matches = [await this.keys.findByHash(parsed.keyHash)].filter((key): key is ApiKey => key !== null);
        break;
      case 'id':
        matches = [await this.keys.findById(parsed.id)].filter((key): key is ApiKey => key !== null);
        break;
      case 'prefix':
        matches = await this.keys.findByPrefix(parsed.prefix, 2);
        break;
    }
    if (matches.length === 0) throw new WireException(ErrorCode.AdminKeyNotFound, 'no key matches');
    if (matches.length > 1)
      throw new WireException(ErrorCode.AdminKeyAmbiguous, 'the prefix matches more than one key');
    return matches[0];
  }
}

function summaryOf(key: ApiKey, balance: bigint): AdminKeySummary {
  return {
    id: key.id,
    prefix: key.prefix,
    status: key.revokedAt ? 'revoked' : 'active',
    createdAt: key.createdAt.toISOString(),
    revokedAt: key.revokedAt?.toISOString() ?? null,
    toppedUp: key.toppedUpMicros.toString(),
    spent: key.spentMicros.toString(),
    balance: balance.toString(),
  };
}

function checkTopUp(amount: bigint, method: TopUpMethod): void {
  if (amount <= 0n || amount > MAX_TOPUP_MICROS) throw invalidArgument('top-up amount is out of range');
  if (method === 'x402' && amount < MIN_TOPUP_MICROS) throw invalidArgument('the minimum top-up is USD 1');
}

function checkReference(externalRef: string): void {
  if (externalRef.length === 0 || externalRef.length > MAX_EXTERNAL_REF_LENGTH)
    throw invalidArgument('external reference is empty or too long');
}

function readNote(note: unknown): string | undefined {
  if (note === undefined || note === null) return undefined;
  if (typeof note !== 'string' || note.length > MAX_NOTE_LENGTH)
    throw invalidArgument(`note must be a string of at most ${MAX_NOTE_LENGTH} characters`);
  return note;
}
