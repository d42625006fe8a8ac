/**
 * Settlement records on their way to reconciliation: queued in Redis together with the payment's
 * "used" mark (the call's only write), then moved to Postgres by the replicas' drain.
 */
import { type AdminReconcileReply, Subject } from '@appcat/contracts';
import { jest } from '@jest/globals';
import pg from 'pg';
import { connectRedis } from '../src/database/redis.js';
import { PaymentsResources } from '../src/payments-resources.js';
import { PaymentLock } from '../src/x402/payment-lock.js';
import { PENDING_SETTLEMENTS_STREAM, REJECTED_SETTLEMENTS_STREAM, type SettlementRecord, SettlementRecords } from '../src/x402/settlement-records.js';
import { startPaymentsCluster, type PaymentsCluster } from './support/payments-cluster.js';

jest.setTimeout(30_000);

describe('x402 settlement records', () => {
  let cluster: PaymentsCluster;
  let sequence = 0;

  beforeAll(async () => {
    cluster = await startPaymentsCluster('settlements', 1);
  });

  afterAll(() => cluster.stop());

  const appRecords = () => cluster.apps[0].get(PaymentsResources).settlements;
  const settlement = (overrides: Partial<SettlementRecord> = {}): SettlementRecord => {
    sequence += 1;
    return {
      paymentId: `eip155:8453:0xpayer:0xnonce${sequence}`,
      network: 'eip155:8453',
      transaction: `0xtx${sequence}`,
      payer: '0xpayer',
      amount: 3000n,
      purpose: 'call',
      route: 'apps.lookup',
      requestId: `req-${sequence}`,
      resourceUrl: 'http://localhost/api/apps/1',
      settledAtMs: Date.now(),
      ...overrides,
    };
  };
  const rowsOf = async (transaction: string) =>
    (await cluster.db.pool.query('SELECT payment_id, request_id, amount_micros::text FROM x402_settlements WHERE transaction = $1', [transaction])).rows;
  /** Queues a record as a replica that then died before writing it would have left it. */
  const queue = (record: SettlementRecord) =>
    cluster.redis.xadd(PENDING_SETTLEMENTS_STREAM, '*', 'record', JSON.stringify({ ...record, amount: record.amount.toString() }));
  /** Runs `body` with the app's background drain stopped, so only the test moves records. */
  const withoutBackgroundDrain = async (body: () => Promise<void>) => {
    await appRecords().stop();
    try {
      await body();
    } finally {
      appRecords().start();
    }
  };

  it('queues the record in the same Redis transaction as the "used" mark; while Postgres is down it waits there, and the drain stores it once', async () => {
    await withoutBackgroundDrain(async () => {
      const unreachable = new pg.Pool({ connectionString: 'postgresql://postgres:postgres@127.0.0.1:1/none', connectionTimeoutMillis: 200 });
      unreachable.on('error', () => undefined);
      const postgresDown = new SettlementRecords(unreachable, cluster.redis);
      const paid = settlement();
      await postgresDown.record(paid, (transaction) => PaymentLock.markUsedIn(transaction, paid.paymentId, 60_000));
      await postgresDown.stop(); // its own write (and shutdown drain) fail: Postgres is unreachable
      await unreachable.end();

      expect(await cluster.redis.get(PaymentLock.keyOf(paid.paymentId))).toBe('used');
      expect(await cluster.redis.pttl(PaymentLock.keyOf(paid.paymentId))).toBeGreaterThan(50_000);
      const records = new SettlementRecords(cluster.db.pool, cluster.redis);
      expect(await records.pendingCount()).toBe(1);
      expect(await rowsOf(paid.transaction)).toEqual([]);

      await queue(paid); // queued twice
      expect(await records.drainPending()).toBe(2);
      expect(await records.pendingCount()).toBe(0);
      expect(await rowsOf(paid.transaction)).toEqual([{ payment_id: paid.paymentId, request_id: paid.requestId, amount_micros: '3000' }]);
    });
  });

  it('is written to Postgres by the replica itself moments after, without the drain, even if Redis loses its copy', async () => {
    await withoutBackgroundDrain(async () => {
      const records = new SettlementRecords(cluster.db.pool, cluster.redis);
      const paid = settlement();
      await records.record(paid);
      await cluster.redis.del(PENDING_SETTLEMENTS_STREAM);
      const deadline = Date.now() + 2_000;
      while ((await rowsOf(paid.transaction)).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await rowsOf(paid.transaction)).toHaveLength(1);
      expect(await records.pendingCount()).toBe(0);
    });
  });

  it('moves records another replica left behind, on a timer and at shutdown', async () => {
    const leftBehind = settlement();
    await queue(leftBehind);
    const deadline = Date.now() + 5_000;
    while ((await rowsOf(leftBehind.transaction)).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await rowsOf(leftBehind.transaction)).toHaveLength(1);

    await withoutBackgroundDrain(async () => {
      const atShutdown = settlement();
      await queue(atShutdown);
      const records = new SettlementRecords(cluster.db.pool, cluster.redis);
      records.start();
      await records.stop();
      expect(await rowsOf(atShutdown.transaction)).toHaveLength(1);
      expect(await records.pendingCount()).toBe(0);
    });
  });

  it('writes to Postgres directly when Redis fails', async () => {
    const down = connectRedis('redis://127.0.0.1:1', { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    down.on('error', () => undefined);
    try {
      const records = new SettlementRecords(cluster.db.pool, down);
      const paid = settlement();
      await records.record(paid, (transaction) => PaymentLock.markUsedIn(transaction, paid.paymentId, 60_000));
      expect(await rowsOf(paid.transaction)).toHaveLength(1);
    } finally {
      down.disconnect();
    }
  });

  it('sets aside a record Postgres refuses, stores the others, and reconciliation counts it', async () => {
    await withoutBackgroundDrain(async () => {
      const records = new SettlementRecords(cluster.db.pool, cluster.redis);
      const first = settlement();
      await queue(first);
      await records.drainPending();
      // The same payment identity settled again under another transaction: Postgres refuses it.
      const conflicting = settlement({ paymentId: first.paymentId });
      const fine = settlement();
      await queue(conflicting);
      await queue(fine);

      expect(await records.drainPending()).toBe(2);
      expect(await records.pendingCount()).toBe(0);
      expect(await rowsOf(fine.transaction)).toHaveLength(1);
      expect(await rowsOf(conflicting.transaction)).toEqual([]);
      expect(await records.rejectedCount()).toBe(1);
      const [[, fields]] = (await cluster.redis.xrange(REJECTED_SETTLEMENTS_STREAM, '-', '+')) as [string, string[]][];
      expect(JSON.parse(fields[1])).toMatchObject({ paymentId: first.paymentId, transaction: conflicting.transaction, amount: '3000' });
    });

    const reply = await cluster.client.call<AdminReconcileReply>(Subject.AdminReconcile, { waitMs: 0 });
    expect(reply.settlements.queued).toBe(1);
    expect(reply.exact).toBe(false);
    await cluster.redis.del(REJECTED_SETTLEMENTS_STREAM);
    expect((await cluster.client.call<AdminReconcileReply>(Subject.AdminReconcile, { waitMs: 0 })).exact).toBe(true);
  });
});
