import { randomUUID } from 'node:crypto';
import { ErrorCode } from '@appcat/contracts';
import { freePort, type ManagedProcess, startRedisServer } from '@appcat/testing';
import type { Redis } from 'ioredis';
import { CreditService } from '../src/credits/credit-service.js';
import { CreditStore } from '../src/persistence/credit-store.js';
import { createPool, createPrisma } from '../src/database/database.js';
import { connectRedis } from '@appcat/redis';
import { issueApiKey } from '../src/keys/api-key.js';
import { KeyRepository } from '../src/persistence/key-repository.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';
import { testKeyspace } from './support/test-config.js';

describe('CreditService edge cases', () => {
  let server: ManagedProcess;
  let redis: Redis;
  let store: CreditStore;
  let db: TestDatabase;

  beforeAll(async () => {
    [server, db] = await Promise.all([startRedisServer(), createTestDatabase('service')]);
    redis = connectRedis(server.url);
    store = new CreditStore(redis, testKeyspace);
  });

  afterAll(async () => {
    redis.disconnect();
    await server.stop();
    await db.drop();
  });

  const withService = async (
    databaseUrl: string,
    unknownKeyTtlMs: number,
    use: (service: CreditService) => Promise<void>,
  ) => {
    const pool = createPool(databaseUrl, 2);
    const prisma = createPrisma(pool);
    try {
      await use(new CreditService(store, new KeyRepository(prisma), unknownKeyTtlMs, 15_000));
    } finally {
      await prisma.$disconnect();
      await pool.end();
    }
  };
  const debitOf = (keyHash: string) => ({ keyHash, amount: '3000', route: 'apps.get', requestId: 'r' });

  it('refuses an unknown key even with the negative cache turned off', async () => {
    await withService(db.url, 0, async (service) => {
      const keyHash = issueApiKey().keyHash;
      await expect(service.debit(debitOf(keyHash))).rejects.toMatchObject({ code: ErrorCode.CreditKeyUnknown });
      await expect(service.balance({ keyHash })).rejects.toMatchObject({ code: ErrorCode.CreditKeyUnknown });
      expect(await redis.exists(testKeyspace.unknownMarkerOf(keyHash))).toBe(0);
    });
  });

  it('still answers insufficient, not unavailable, when the low-balance re-read cannot reach Postgres', async () => {
    const deadDatabase = `postgresql://postgres@127.0.0.1:${await freePort()}/appcat`;
    await withService(deadDatabase, 30_000, async (service) => {
      const keyHash = issueApiKey().keyHash;
      await store.sync(keyHash, { id: randomUUID(), toppedUp: 2_000n, spent: 0n, revoked: false });
      await expect(service.debit(debitOf(keyHash))).rejects.toMatchObject({ code: ErrorCode.CreditInsufficient });
    });
  });
});
