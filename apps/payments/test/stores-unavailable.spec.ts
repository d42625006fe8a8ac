import { randomUUID } from 'node:crypto';
import { type AdminKeyCreated, ErrorCode, Subject } from '@appcat/contracts';
import { freePort, startNatsServer, startRedisServer } from '@appcat/testing';
import { createPaymentsApp } from '../src/app.js';
import { CreditStore } from '../src/persistence/credit-store.js';
import { connectRedis } from '@appcat/redis';
import { issueApiKey } from '../src/keys/api-key.js';
import { NatsRequester, type Reply } from './support/nats-requester.js';
import { startPaymentsCluster } from './support/payments-cluster.js';
import { testConfig, testKeyspace } from './support/test-config.js';

const codeOf = (reply: Reply<unknown>) => (reply.ok ? 'ok' : reply.error.code);

describe('when a credit store is unavailable', () => {
  it('answers CREDIT_STORE_UNAVAILABLE without Redis, and still creates keys in Postgres', async () => {
    const cluster = await startPaymentsCluster('noredis', 1);
    try {
      const created = await cluster.client.call<AdminKeyCreated>(Subject.AdminKeysCreate, { credit: '9000' });
      await cluster.redisServer.kill();
      const debit = { keyHash: issueApiKey().keyHash, amount: '3000', route: 'r', requestId: 'x' };
      expect(codeOf(await cluster.client.request(Subject.CreditsDebit, debit))).toBe(ErrorCode.CreditStoreUnavailable);
      expect(codeOf(await cluster.client.request(Subject.CreditsBalance, { keyHash: debit.keyHash }))).toBe(
        ErrorCode.CreditStoreUnavailable,
      );
      expect(codeOf(await cluster.client.request(Subject.AdminKeysShow, { ref: created.id }))).toBe(
        ErrorCode.CreditStoreUnavailable,
      );
      // The key is durable before Redis is touched, and the reply carrying it is not lost.
      const another = await cluster.client.request<AdminKeyCreated>(Subject.AdminKeysCreate, { credit: '3000' });
      expect(another.ok).toBe(true);
      const { rows } = await cluster.db.pool.query('SELECT spent_micros FROM api_keys WHERE id = $1', [created.id]);
      expect(rows[0].spent_micros).toBe('0');
    } finally {
      await cluster.stop();
    }
  });

  it('answers CREDIT_STORE_UNAVAILABLE for keys it must load while Postgres is down, and keeps debiting loaded keys', async () => {
    const [nats, redisServer] = await Promise.all([startNatsServer(), startRedisServer()]);
    const deadDatabase = `postgresql://postgres@127.0.0.1:${await freePort()}/appcat`;
    const app = await createPaymentsApp(
      testConfig({ nats: nats.url, redis: redisServer.url, database: deadDatabase }),
      { logger: false },
    );
    await app.listen();
    const client = await NatsRequester.connect(nats.url);
    const redis = connectRedis(redisServer.url);
    try {
      const unloaded = issueApiKey().keyHash;
      expect(
        codeOf(
          await client.request(Subject.CreditsDebit, { keyHash: unloaded, amount: '3000', route: 'r', requestId: 'x' }),
        ),
      ).toBe(ErrorCode.CreditStoreUnavailable);
      expect(await redis.exists(testKeyspace.unknownMarkerOf(unloaded))).toBe(0);
      expect(codeOf(await client.request(Subject.AdminKeysCreate, { credit: '0' }))).toBe(
        ErrorCode.CreditStoreUnavailable,
      );
      // A key Redis holds is debited without Postgres; the debit waits in the ledger stream.
      const loaded = issueApiKey().keyHash;
      await new CreditStore(redis, testKeyspace).sync(loaded, {
        id: randomUUID(),
        toppedUp: 6000n,
        spent: 0n,
        revoked: false,
      });
      expect(
        await client.request(Subject.CreditsDebit, { keyHash: loaded, amount: '3000', route: 'r', requestId: 'x' }),
      ).toMatchObject({
        ok: true,
        value: { balance: '3000' },
      });
      expect(await redis.xlen(testKeyspace.streams[0])).toBe(1);
    } finally {
      await client.close();
      await app.close();
      redis.disconnect();
      await Promise.all([nats.stop(), redisServer.stop()]);
    }
  });
});
