import {
  type AdminKeyCreated,
  type AdminReconcileReply,
  type DebitReply,
  ErrorCode,
  hashApiKey,
  PRICE_PER_CALL_MICROS,
  Subject,
} from '@appcat/contracts';
import { PaymentsMetrics } from '@appcat/ops';
import pg from 'pg';
import { KeyService } from '../src/keys/key-service.js';
import { PaymentsResources } from '../src/payments-resources.js';
import { type SettlementRecord, SettlementRecords } from '../src/x402/settlement-records.js';
import { SettlementRepository } from '../src/persistence/settlement-repository.js';
import { startPaymentsCluster, type PaymentsCluster } from './support/payments-cluster.js';
import { testKeyspace } from './support/test-config.js';

describe('reconciliation (payments.admin.reconcile)', () => {
  let cluster: PaymentsCluster;

  beforeAll(async () => {
    cluster = await startPaymentsCluster('reconcile', 2);
  });

  afterAll(() => cluster.stop());

  const createKey = (credit: bigint) =>
    cluster.client.call<AdminKeyCreated>(Subject.AdminKeysCreate, { credit: credit.toString() });
  const debit = (key: string) =>
    cluster.client.call<DebitReply>(Subject.CreditsDebit, {
      keyHash: hashApiKey(key),
      amount: PRICE_PER_CALL_MICROS.toString(),
      route: 'apps.search',
      requestId: 'r',
    });
  const reconcile = (waitMs = 5_000) => cluster.client.call<AdminReconcileReply>(Subject.AdminReconcile, { waitMs });
  const resources = () => cluster.apps.map((app) => app.get(PaymentsResources));
  /** Reconciliations counted with `result` over every replica (appcat_reconcile_runs_total). */
  async function runs(result: string): Promise<number> {
    let count = 0;
    for (const app of cluster.apps) {
      const { values } = await app.get(PaymentsMetrics).reconcileRuns.get();
      count += values.find((value) => value.labels.result === result)?.value ?? 0;
    }
    return count;
  }
  const settlement = (overrides: Partial<SettlementRecord>): SettlementRecord => ({
    paymentId: `eip155:8453:0xpayer:${Math.random()}`,
    network: 'eip155:8453',
    transaction: `0x${Math.random().toString(16).slice(2)}`,
    payer: '0xpayer',
    amount: 1_000_000n,
    purpose: 'topup',
    route: 'topup',
    requestId: 'req-1',
    resourceUrl: 'http://localhost/api/credits/topup?amount=1',
    settledAtMs: Date.now(),
    ...overrides,
  });

  it('is exact once the debits have reached Postgres, and counts every debit', async () => {
    const keys = await Promise.all([createKey(5_000_000n), createKey(1_000_000n), createKey(0n)]);
    for (let i = 0; i < 7; i++) await debit(keys[0].key);
    for (let i = 0; i < 4; i++) await debit(keys[1].key);

    const reply = await reconcile();
    expect(reply).toMatchObject({ exact: true, keysChecked: 3, differences: [], ledgerBacklog: 0 });
    expect(reply.totals).toEqual({
      toppedUp: '6000000',
      spent: String(11n * PRICE_PER_CALL_MICROS),
      debits: 11,
      pending: '0',
      held: '0',
      redisBalance: String(6_000_000n - 11n * PRICE_PER_CALL_MICROS),
    });
  });

  it('reports debits still in the ledger stream as pending, then exact once they are flushed', async () => {
    const key = await createKey(1_000_000n);
    await Promise.all(resources().map((r) => r.flusher.stop()));
    try {
      for (let i = 0; i < 3; i++) await debit(key.key);
      const pending = await reconcile(0);
      expect(pending.exact).toBe(false);
      expect(pending.ledgerBacklog).toBe(3);
      expect(pending.differences).toEqual([
        expect.objectContaining({
          id: key.id,
          status: 'pending',
          pending: '9000',
          difference: '0',
          expectedBalance: '991000',
          redisBalance: '991000',
        }),
      ]);
    } finally {
      for (const r of resources()) r.flusher.start();
    }
    expect(await reconcile()).toMatchObject({ exact: true, differences: [] });
  });

  it('names a key Redis holds less for (short), one it holds more for (forgiven) and a Postgres total that is off', async () => {
    const [short, forgiven, offTotal] = await Promise.all([
      createKey(1_000_000n),
      createKey(1_000_000n),
      createKey(1_000_000n),
    ]);
    await Promise.all([debit(short.key), debit(forgiven.key), debit(offTotal.key)]);
    expect((await reconcile()).exact).toBe(true);

    await cluster.redis.hincrby(testKeyspace.keyOf(hashApiKey(short.key)), 'bal', -3000);
    await cluster.redis.hincrby(testKeyspace.keyOf(hashApiKey(forgiven.key)), 'bal', 6000);
    await cluster.db.pool.query('UPDATE api_keys SET spent_micros = spent_micros + 1 WHERE id = $1', [offTotal.id]);
    const [differed, exact] = [await runs('differs'), await runs('exact')];
    try {
      const reply = await reconcile(0);
      expect(await runs('differs')).toBe(differed + 1);
      const status = Object.fromEntries(reply.differences.map((row) => [row.id, [row.status, row.difference]]));
      expect(status).toEqual({
        [short.id]: ['short', '-3000'],
        [forgiven.id]: ['forgiven', '6000'],
        [offTotal.id]: ['postgres_mismatch', '1'],
      });
      expect(reply.exact).toBe(false);
    } finally {
      await cluster.redis.hincrby(testKeyspace.keyOf(hashApiKey(short.key)), 'bal', 3000);
      await cluster.redis.hincrby(testKeyspace.keyOf(hashApiKey(forgiven.key)), 'bal', -6000);
      await cluster.db.pool.query('UPDATE api_keys SET spent_micros = spent_micros - 1 WHERE id = $1', [offTotal.id]);
    }
    expect((await reconcile()).exact).toBe(true);
    expect(await runs('exact')).toBe(exact + 1);
  });

  it('matches x402 top-ups with their settlements both ways', async () => {
    const keys = cluster.apps[0].get(KeyService);
    const records = resources()[0].settlements;
    const key = await createKey(0n);
    const paid = settlement({});
    const ref = `x402:${paid.network}:${paid.transaction}`;
    await keys.topUp(key.id, 1_000_000n, 'x402', ref);

    const unrecorded = await reconcile(0);
    expect(unrecorded.settlements.topUpsWithoutSettlement).toEqual([ref]);
    expect(unrecorded.exact).toBe(false);

    await records.record(paid);
    const uncredited = settlement({});
    await records.record(uncredited);
    await records.record(settlement({ purpose: 'call', route: 'apps.search', amount: 3000n }));
    const reply = await reconcile(0);
    expect(reply.settlements).toMatchObject({
      calls: 1,
      topUps: 2,
      duplicates: 0,
      topUpsWithoutSettlement: [],
      settlementsWithoutTopUp: [`${uncredited.network}:${uncredited.transaction}`],
    });
    expect(reply.exact).toBe(false);
    await records.flush(); // the replica's own write of the record must not put the row back after this
    await cluster.db.pool.query('DELETE FROM x402_settlements WHERE transaction = $1', [uncredited.transaction]);
    expect((await reconcile(0)).exact).toBe(true);
  });

  it('queues a settlement in Redis while Postgres is unreachable and moves it there exactly once', async () => {
    const unreachable = new pg.Pool({
      connectionString: 'postgresql://postgres:postgres@127.0.0.1:1/none',
      connectionTimeoutMillis: 500,
    });
    unreachable.on('error', () => undefined);
    const down = new SettlementRecords(
      new SettlementRepository(unreachable),
      cluster.redis,
      cluster.apps[0].get(PaymentsResources).settlements.keyspace,
    );
    const record = settlement({ purpose: 'call', route: 'apps.lookup', amount: 3000n, requestId: 'queued-1' });
    await down.record(record);
    await down.record(record); // the same settlement reported twice is still one row
    expect(await down.pendingCount()).toBe(2);
    await unreachable.end();

    // Any replica's drain (every second, and reconcile's own) moves it.
    const reply = await reconcile();
    expect(reply.settlements.queued).toBe(0);
    const { rows } = await cluster.db.pool.query(
      'SELECT request_id, route, amount_micros::text FROM x402_settlements WHERE transaction = $1',
      [record.transaction],
    );
    expect(rows).toEqual([{ request_id: 'queued-1', route: 'apps.lookup', amount_micros: '3000' }]);
    expect(reply.exact).toBe(true);
  });

  it('refuses a wait out of range', async () => {
    const reply = await cluster.client.request(Subject.AdminReconcile, { waitMs: -1 });
    expect(reply).toMatchObject({ ok: false, error: { code: ErrorCode.InvalidArgument } });
  });
});
