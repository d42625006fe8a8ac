import { Inject, Injectable } from '@nestjs/common';
import type { PrismaClient } from '../database/database.js';
import { PRISMA } from '../payments-tokens.js';
import type { ApiKey, Prisma, TopUp, TopUpMethod } from '../generated/prisma/client.js';

export type { ApiKey, TopUp, TopUpMethod };

export interface TopUpInput {
  keyId: string;
  amount: bigint;
  method: TopUpMethod;
  externalRef: string;
  note?: string;
}

export type TopUpResult =
  | { kind: 'credited'; topUp: TopUp; key: ApiKey }
  /** The external reference was used before: nothing was credited this time. */
  | { kind: 'duplicate'; topUp: TopUp; key: ApiKey }
  | { kind: 'key-not-found' }
  | { kind: 'key-revoked'; key: ApiKey };

/**
 * The advisory lock class under which a key is held against revocation (with the key id's hash): a
 * recharge holds it shared while its payment settles, a revocation takes it exclusively.
 */
const REVOCATION_LOCK = 402_001;
/** How long a transaction may hold a key against revocation: a settlement's facilitator request at its longest, and more. */
const HELD_TRANSACTION_MS = 150_000;

/** Keys and top-ups in Postgres. Running totals change in the same transaction as the rows they sum. */
@Injectable()
export class KeyRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  findByHash(keyHash: string): Promise<ApiKey | null> {
    return this.prisma.apiKey.findUnique({ where: { keyHash } });
  }

  findById(id: string): Promise<ApiKey | null> {
    return this.prisma.apiKey.findUnique({ where: { id } });
  }

  /** Keys whose display prefix starts with `prefix`; at most `limit`. */
  findByPrefix(prefix: string, limit: number): Promise<ApiKey[]> {
    return this.prisma.apiKey.findMany({
      where: { prefix: { startsWith: prefix } },
      take: limit,
      orderBy: { createdAt: 'asc' },
    });
  }

  list(): Promise<ApiKey[]> {
    return this.prisma.apiKey.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }

  topUpsOf(keyId: string): Promise<TopUp[]> {
    return this.prisma.topUp.findMany({ where: { apiKeyId: keyId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }

  /** Inserts a key, and its opening top-up if there is one, in one transaction. */
  createKey(issued: { keyHash: string; prefix: string }, opening: Omit<TopUpInput, 'keyId'> | null): Promise<ApiKey> {
    return this.prisma.$transaction(async (tx) => {
      const key = await tx.apiKey.create({
        data: { keyHash: issued.keyHash, prefix: issued.prefix, toppedUpMicros: opening?.amount ?? 0n },
      });
      if (opening) {
        await tx.topUp.create({
          data: {
            apiKeyId: key.id,
            amountMicros: opening.amount,
            method: opening.method,
            externalRef: opening.externalRef,
            note: opening.note ?? null,
          },
        });
      }
      return key;
    });
  }

  /**
   * Records a top-up and adds it to the key's topped-up total in one transaction. The external
   * reference is unique: a second top-up with the same reference credits nothing and reports the first.
   */
  topUp(input: TopUpInput): Promise<TopUpResult> {
    return this.prisma.$transaction((tx) => this.credit(tx, input));
  }

  /**
   * A recharge whose payment is taken while the key is held against revocation: in one transaction,
   * the key is held (a revocation waits for it), refused if unknown or revoked, `pay` takes the money,
   * and what it paid is credited. Money is then never taken for a key that will not receive it.
   */
  async rechargeHeld(keyId: string, pay: () => Promise<Omit<TopUpInput, 'keyId'>>): Promise<TopUpResult> {
    return this.prisma.$transaction(
      async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock_shared(${REVOCATION_LOCK}::int, hashtext(${keyId}))`;
        const key = await tx.apiKey.findUnique({ where: { id: keyId } });
        if (!key) return { kind: 'key-not-found' };
        if (key.revokedAt) return { kind: 'key-revoked', key };
        return this.credit(tx, { keyId, ...(await pay()) });
      },
      { timeout: HELD_TRANSACTION_MS },
    );
  }

  private async credit(tx: Prisma.TransactionClient, input: TopUpInput): Promise<TopUpResult> {
    // Locks the key row, so the revocation check and the total below see the same state.
    const locked = await tx.$queryRaw<{ revoked: boolean }[]>`
      SELECT revoked_at IS NOT NULL AS revoked FROM api_keys WHERE id = ${input.keyId}::uuid FOR NO KEY UPDATE`;
    if (locked.length === 0) return { kind: 'key-not-found' };
    const existing = await tx.topUp.findUnique({ where: { externalRef: input.externalRef } });
    if (existing) {
      return {
        kind: 'duplicate',
        topUp: existing,
        key: await tx.apiKey.findUniqueOrThrow({ where: { id: existing.apiKeyId } }),
      };
    }
    if (locked[0].revoked)
      return { kind: 'key-revoked', key: await tx.apiKey.findUniqueOrThrow({ where: { id: input.keyId } }) };
    const inserted = await tx.topUp.createMany({
      data: [
        {
          apiKeyId: input.keyId,
          amountMicros: input.amount,
          method: input.method,
          externalRef: input.externalRef,
          note: input.note ?? null,
        },
      ],
      // A concurrent top-up with the same reference for another key would not be serialised by our
      // row lock; the unique index settles it without an error that would abort the transaction.
      skipDuplicates: true,
    });
    const topUp = await tx.topUp.findUniqueOrThrow({ where: { externalRef: input.externalRef } });
    if (inserted.count === 0) {
      return { kind: 'duplicate', topUp, key: await tx.apiKey.findUniqueOrThrow({ where: { id: topUp.apiKeyId } }) };
    }
    const key = await tx.apiKey.update({
      where: { id: input.keyId },
      data: { toppedUpMicros: { increment: input.amount } },
    });
    return { kind: 'credited', topUp, key };
  }

  /**
   * Marks the key revoked (keeping the first revocation time) and returns it; null if there is no such
   * key. Waits for the recharges settling for it (rechargeHeld), which then credit it first.
   */
  async revoke(keyId: string): Promise<ApiKey | null> {
    await this.prisma.$transaction(
      async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${REVOCATION_LOCK}::int, hashtext(${keyId}))`;
        await tx.$executeRaw`UPDATE api_keys SET revoked_at = now() WHERE id = ${keyId}::uuid AND revoked_at IS NULL`;
      },
      { timeout: HELD_TRANSACTION_MS, maxWait: HELD_TRANSACTION_MS },
    );
    return this.findById(keyId);
  }
}
