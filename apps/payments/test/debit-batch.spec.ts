import {
  type AdminKeyCreated,
  type AdminReconcileReply,
  type BatchReply,
  type DebitReply,
  type DebitRequest,
  ErrorCode,
  hashApiKey,
  PRICE_PER_CALL_MICROS,
  Subject,
} from '@appcat/contracts';
import { NatsRpcClient, type RpcCallError, type RpcResult, TypedRpc } from '@appcat/microservice';
import { jest } from '@jest/globals';
import { CreditService } from '../src/credits/credit-service.js';
import { CreditStore } from '../src/persistence/credit-store.js';
import { startPaymentsCluster, type PaymentsCluster } from './support/payments-cluster.js';
import { eventually } from './support/test-config.js';

jest.setTimeout(60_000);

const PRICE = PRICE_PER_CALL_MICROS;

describe('coalesced debits (payments.credits.debit.batch), two payments replicas', () => {
  let cluster: PaymentsCluster;
  /** Two gateways' NATS clients, each coalescing its debits as the gateway does. */
  const gateways: { client: NatsRpcClient; rpc: TypedRpc<RpcCallError> }[] = [];

  beforeAll(async () => {
    cluster = await startPaymentsCluster('debit_batch', 2);
    for (let i = 0; i < 2; i++) {
      const client = await NatsRpcClient.connect(
        { servers: [cluster.nats.url], requestTimeoutMs: 20_000, shutdownGraceMs: 0 },
        `gateway-${i}`,
      );
      gateways.push({ client, rpc: new TypedRpc(client, (error: RpcCallError) => error, { batchMaxItems: 16 }) });
    }
  });

  afterAll(async () => {
    await Promise.all(gateways.map(({ client }) => client.close()));
    await cluster.stop();
  });

  const createKey = (credit: bigint) =>
    cluster.client.call<AdminKeyCreated>(Subject.AdminKeysCreate, { credit: credit.toString() });
  const item = (key: string, overrides: Partial<DebitRequest> = {}): DebitRequest => ({
    keyHash: hashApiKey(key),
    amount: PRICE.toString(),
    route: 'apps.get',
    requestId: 'batch-test',
    ...overrides,
  });
  const batch = (items: unknown[]) => cluster.client.call<BatchReply<DebitReply>>(Subject.CreditsDebitBatch, { items });
  const codeOf = (result: { ok: boolean; error?: { code: string } }) => (result.ok ? 'ok' : result.error!.code);

  it('answers every item of a batch on its own: a failing item never fails the others', async () => {
    const [rich, empty, revoked] = await Promise.all([createKey(10n * PRICE), createKey(0n), createKey(10n * PRICE)]);
    await cluster.client.call(Subject.AdminKeysRevoke, { ref: revoked.id });
    const unknown = 'ak_' + 'u'.repeat(40);
    const { results } = await batch([
      item(rich.key),
      item(unknown),
      item(empty.key),
      item(rich.key, { amount: '-5' }),
      item(revoked.key),
      { nonsense: true },
      item(rich.key),
    ]);
    expect(results.map(codeOf)).toEqual([
      'ok',
      ErrorCode.CreditKeyUnknown,
      ErrorCode.CreditInsufficient,
      ErrorCode.InvalidArgument,
      ErrorCode.CreditKeyRevoked,
      ErrorCode.InvalidArgument,
      'ok',
    ]);
    // The two debits of one key in one batch are applied one after the other, each with its own ledger entry.
    const oks = results.flatMap((result) => (result.ok ? [result.value] : []));
    expect(oks.map((reply) => reply.balance)).toEqual([String(9n * PRICE), String(8n * PRICE)]);
    expect(new Set(oks.map((reply) => reply.debitId)).size).toBe(2);
    const flushed = await eventually(
      () =>
        cluster.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM credit_debits WHERE api_key_id = $1', [
          rich.id,
        ]),
      ({ rows }) => rows[0].n === '2',
    );
    expect(flushed.rows[0].n).toBe('2');
  });

  it('refuses a batch that is not a list of 1 to 256 items as a whole', async () => {
    for (const items of [[], 'x', Array.from({ length: 257 }, () => ({}))]) {
      const reply = await cluster.client.request(Subject.CreditsDebitBatch, { items });
      expect(reply).toMatchObject({ ok: false, error: { code: ErrorCode.InvalidArgument } });
    }
  });

  it('across two gateways and two replicas: never below zero, never twice, and the books reconcile exactly', async () => {
    const keys = await Promise.all([createKey(100n * PRICE), createKey(37n * PRICE)]);
    // Cold: both replicas load the keys from Postgres during the burst.
    await cluster.redis.del(...keys.map((key) => cluster.apps[0].get(CreditStore).keyspace.keyOf(hashApiKey(key.key))));
    const spies = cluster.apps.map((app) => jest.spyOn(app.get(CreditService), 'batch'));
    let results: RpcResult<DebitReply>[];
    try {
      // 150 calls per key, spread over both gateways, all started in one turn (as a burst of HTTP calls is).
      results = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          gateways[i % 2].rpc.result(
            Subject.CreditsDebit,
            item(keys[i % 4 < 2 ? 0 : 1].key, { requestId: `burst-${i}` }),
          ),
        ),
      );
      // The debits went as batches, to both replicas.
      for (const spy of spies) expect(spy.mock.calls.length).toBeGreaterThan(0);
    } finally {
      spies.forEach((spy) => spy.mockRestore());
    }
    const perKey = [0, 1].map((k) => results.filter((_, i) => (i % 4 < 2 ? 0 : 1) === k));
    const okCounts = perKey.map((list) => list.filter((result) => result.ok).length);
    expect(okCounts).toEqual([100, 37]);
    for (const list of perKey) {
      for (const result of list) if (!result.ok) expect(result.error.code).toBe(ErrorCode.CreditInsufficient);
    }
    const debitIds = results.flatMap((result) => (result.ok ? [result.value.debitId] : []));
    expect(new Set(debitIds).size).toBe(137);
    // Every balance a debit reported is distinct per key and never below zero.
    for (const list of perKey) {
      const balances = list.flatMap((result) => (result.ok ? [BigInt(result.value.balance)] : []));
      expect(new Set(balances).size).toBe(balances.length);
      expect(balances.every((balance) => balance >= 0n)).toBe(true);
      expect(balances).toContain(0n);
    }
    const reconciled = await cluster.client.call<AdminReconcileReply>(Subject.AdminReconcile, { waitMs: 10_000 });
    expect(reconciled).toMatchObject({ exact: true, differences: [], ledgerBacklog: 0 });
    const { rows } = await cluster.db.pool.query<{ n: string; total: string }>(
      'SELECT count(*) AS n, sum(amount_micros) AS total FROM credit_debits WHERE api_key_id = ANY($1)',
      [keys.map((key) => key.id)],
    );
    expect(rows[0]).toEqual({ n: '137', total: String(137n * PRICE) });
  });
});
