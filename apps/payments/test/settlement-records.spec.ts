/**
 * Settlement records on their way to reconciliation: queued in Redis together with the payment's
 * "used" mark (the call's only write), then moved to Postgres by the replicas' drain.
 */
import { type AdminReconcileReply, Subject } from '@appcat/contracts';
import calculateSlot from 'cluster-key-slot';
import pg from 'pg';
import { connectRedis } from '@appcat/redis';
import { PaymentsResources } from '../src/payments-resources.js';
import { PaymentLock } from '../src/x402/payment-lock.js';
import { type SettlementRecord, SettlementRecords } from '../src/x402/settlement-records.js';
import { SettlementRepository } from '../src/persistence/settlement-repository.js';
import { X402Keyspace } from '../src/x402/x402-keyspace.js';
import { startPaymentsCluster, type PaymentsCluster } from './support/payments-cluster.js';

describe('x402 settlement records', () => {
  let cluster: PaymentsCluster;
  let sequence = 0;

  beforeAll(async () => {
    cluster = await startPaymentsCluster('settlements', 1);
  });

  afterAll(() => cluster.stop());

  const appRecords = () => cluster.apps[0].get(PaymentsResources).settlements;
  /** The app's keyspace on one Redis (one shard, LEDGER_STREAM_SHARDS unset). */
  const keyspace = new X402Keyspace(1);
  const keysOf = (record: SettlementRecord) => keyspace.keysOf(record.paymentId);
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
    (
      await cluster.db.pool.query(
        'SELECT payment_id, request_id, amount_micros::text FROM x402_settlements WHERE transaction = $1',
        [transaction],
      )
    ).rows;
  /** Queues a record as a replica that then died before writing it would have left it. */
  const queue = (record: SettlementRecord, stream = keysOf(record).pending) =>
    cluster.redis.xadd(stream, '*', 'record', JSON.stringify({ ...record, amount: record.amount.toString() }));
  /** Runs `body` with the app's background drain stopped, so only the test moves records. */
  const withoutBackgroundDrain = async (body: () => Promise<void>) => {
    await appRecords().stop();
    try {
      await body();
    } finally {
      appRecords().start();
    }
  };

  it('queues the record with the same Redis script that sets the "used" mark; while Postgres is down it waits there, and the drain stores it once', async () => {
    await withoutBackgroundDrain(async () => {
      const unreachable = new pg.Pool({
        connectionString: 'postgresql://postgres:postgres@127.0.0.1:1/none',
        connectionTimeoutMillis: 200,
      });
      unreachable.on('error', () => undefined);
      const postgresDown = new SettlementRecords(new SettlementRepository(unreachable), cluster.redis, keyspace);
      const paid = settlement();
      await postgresDown.record(paid, keysOf(paid), PaymentLock.used(60_000));
      await postgresDown.stop(); // its own write (and shutdown drain) fail: Postgres is unreachable
      await unreachable.end();

      expect(await cluster.redis.get(keysOf(paid).lock)).toBe('used');
      expect(await cluster.redis.pttl(keysOf(paid).lock)).toBeGreaterThan(50_000);
      const records = new SettlementRecords(new SettlementRepository(cluster.db.pool), cluster.redis, keyspace);
      expect(await records.pendingCount()).toBe(1);
      expect(await rowsOf(paid.transaction)).toEqual([]);

      await queue(paid); // queued twice
      expect(await records.drainPending()).toBe(2);
      expect(await records.pendingCount()).toBe(0);
      expect(await rowsOf(paid.transaction)).toEqual([
        { payment_id: paid.paymentId, request_id: paid.requestId, amount_micros: '3000' },
      ]);
    });
  });

  it('is written to Postgres by the replica itself moments after, without the drain, even if Redis loses its copy', async () => {
    await withoutBackgroundDrain(async () => {
      const records = new SettlementRecords(new SettlementRepository(cluster.db.pool), cluster.redis, keyspace);
      const paid = settlement();
      await records.record(paid);
      await cluster.redis.del(keysOf(paid).pending);
      // The deadline guards against waiting forever; with the drain off only the replica can write it.
      const deadline = Date.now() + 30_000;
      while ((await rowsOf(paid.transaction)).length === 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await rowsOf(paid.transaction)).toHaveLength(1);
      expect(await records.pendingCount()).toBe(0);
    });
  });

  it('moves records another replica left behind, on a timer and at shutdown', async () => {
    const leftBehind = settlement();
    await queue(leftBehind);
    const deadline = Date.now() + 30_000;
    while ((await rowsOf(leftBehind.transaction)).length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await rowsOf(leftBehind.transaction)).toHaveLength(1);

    await withoutBackgroundDrain(async () => {
      const atShutdown = settlement();
      await queue(atShutdown);
      const records = new SettlementRecords(new SettlementRepository(cluster.db.pool), cluster.redis, keyspace);
      records.start();
      await records.stop();
      expect(await rowsOf(atShutdown.transaction)).toHaveLength(1);
      expect(await records.pendingCount()).toBe(0);
    });
  });

  it('writes to Postgres directly when Redis fails', async () => {
    const down = connectRedis('redis://127.0.0.1:1', {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    down.on('error', () => undefined);
    try {
      const records = new SettlementRecords(new SettlementRepository(cluster.db.pool), down, keyspace);
      const paid = settlement();
      await records.record(paid, keysOf(paid), PaymentLock.used(60_000));
      expect(await rowsOf(paid.transaction)).toHaveLength(1);
    } finally {
      down.disconnect();
    }
  });

  it('sets aside a record Postgres refuses, stores the others, and reconciliation counts it', async () => {
    const first = settlement();
    await withoutBackgroundDrain(async () => {
      const records = new SettlementRecords(new SettlementRepository(cluster.db.pool), cluster.redis, keyspace);
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
      const rejected = X402Keyspace.rejectedOf(keysOf(conflicting).pending);
      const [[, fields]] = (await cluster.redis.xrange(rejected, '-', '+')) as [string, string[]][];
      expect(JSON.parse(fields[1])).toMatchObject({
        paymentId: first.paymentId,
        transaction: conflicting.transaction,
        amount: '3000',
      });
    });

    const reply = await cluster.client.call<AdminReconcileReply>(Subject.AdminReconcile, { waitMs: 0 });
    expect(reply.settlements.queued).toBe(1);
    expect(reply.exact).toBe(false);
    await cluster.redis.del(X402Keyspace.rejectedOf(keysOf(first).pending));
    expect((await cluster.client.call<AdminReconcileReply>(Subject.AdminReconcile, { waitMs: 0 })).exact).toBe(true);
  });

  it("spreads payments over the shards, each lock in its record's slot, and drains every shard and the streams of earlier versions", async () => {
    const sharded = new X402Keyspace(4);
    const paid = Array.from({ length: 40 }, () => settlement());
    // A payment's "used" mark and its record are written by one script: on a Redis Cluster, one slot.
    for (const record of paid) {
      const keys = sharded.keysOf(record.paymentId);
      expect(calculateSlot(keys.lock)).toBe(calculateSlot(keys.pending));
    }
    expect(new Set(paid.map((record) => sharded.keysOf(record.paymentId).pending))).toEqual(
      new Set(sharded.pendingStreams),
    );
    expect(new Set(sharded.pendingStreams.map((stream) => calculateSlot(stream))).size).toBe(4);

    await withoutBackgroundDrain(async () => {
      const records = new SettlementRecords(new SettlementRepository(cluster.db.pool), cluster.redis, sharded);
      for (const record of paid) await queue(record, sharded.keysOf(record.paymentId).pending);
      // Left by a replica of the version that kept every record in one {x402} stream.
      const earlier = settlement();
      await queue(earlier, 'x402:settlements:{x402}:pending');
      expect(await records.pendingCount()).toBe(41);

      expect(await records.drainPending()).toBe(41);
      expect(await records.pendingCount()).toBe(0);
      for (const record of [...paid, earlier]) expect(await rowsOf(record.transaction)).toHaveLength(1);
    });
  });
});
