import { type AdminKeyCreated, type AdminReconcileReply, type DebitReply, hashApiKey, PRICE_PER_CALL_MICROS, Subject } from '@appcat/contracts';
import { jest } from '@jest/globals';
import calculateSlot from 'cluster-key-slot';
import { CreditKeyspace } from '../../src/credits/credit-keyspace.js';
import { startPaymentsOnClusters, type PaymentsOnClusters } from './clusters.js';

jest.setTimeout(120_000);

const KEYS = 12;
const CREDIT = 10_000_000n;

interface Call {
  key: number;
  at: number;
  debitId?: string;
  error?: string;
}

/**
 * Payments on a 3-primary Redis Cluster (one replica each) and 3 routed nats-servers, two replicas,
 * under credit traffic while a node dies. After each fault: reconciliation exact, no call charged twice,
 * no credit lost, and the time until calls succeed again printed.
 */
describe('payments on Redis Cluster and a NATS cluster', () => {
  let clusters: PaymentsOnClusters;
  let keys: AdminKeyCreated[];
  const calls: Call[] = [];

  beforeAll(async () => {
    clusters = await startPaymentsOnClusters('cluster', 2);
    keys = [];
    for (let i = 0; i < KEYS; i++) keys.push(await clusters.clients[i % 3].call<AdminKeyCreated>(Subject.AdminKeysCreate, { credit: CREDIT.toString() }));
  });

  afterAll(() => clusters?.stop());

  const debit = async (key: number, client = key % 3): Promise<Call> => {
    const call: Call = { key, at: Date.now() };
    try {
      const reply = await clusters.clients[client].request<DebitReply>(
        Subject.CreditsDebit,
        { keyHash: hashApiKey(keys[key].key), amount: PRICE_PER_CALL_MICROS.toString(), route: 'apps.search', requestId: `r${calls.length}` },
        3_000,
      );
      if (reply.ok) call.debitId = reply.value.debitId;
      else call.error = reply.error.code;
    } catch (error) {
      call.error = (error as Error).message;
    }
    calls.push(call);
    return call;
  };

  /** Debits from 6 concurrent callers until `stop` resolves. */
  const traffic = async (stop: Promise<void>) => {
    let stopped = false;
    void stop.then(() => (stopped = true));
    let n = 0;
    await Promise.all(
      Array.from({ length: 6 }, async (_, worker) => {
        while (!stopped) await debit((worker + 6 * n++) % KEYS);
      }),
    );
  };

  /** Ms from `since` until every key has been debited successfully again. */
  const recoveredAfter = (since: number): number => {
    const lastFailure = Math.max(since, ...calls.filter((c) => c.at >= since && c.error).map((c) => c.at));
    const firstSuccess = keys.map((_, key) => calls.find((c) => c.key === key && c.at >= lastFailure && c.debitId)?.at ?? Number.POSITIVE_INFINITY);
    return Math.max(...firstSuccess) - since;
  };

  const reconcile = () => clusters.clients[0].call<AdminReconcileReply>(Subject.AdminReconcile, { waitMs: 20_000 });

  /** No debit in Postgres the callers did not ask for, and every key's spent total equals its debit rows. */
  const expectBooksHold = async () => {
    const reply = await reconcile();
    expect(reply.differences).toEqual([]);
    expect(reply).toMatchObject({ exact: true, ledgerBacklog: 0, keysChecked: KEYS });
    const { rows } = await clusters.db.pool.query<{ id: string; api_key_id: string }>('SELECT id, api_key_id FROM credit_debits');
    const answered = new Set(calls.flatMap((c) => (c.debitId ? [c.debitId] : [])));
    const failed = calls.filter((c) => c.error).length;
    // A debit id in Postgres that no caller was given can only come from a call whose reply was lost with
    // a dying node: never more of them than calls that failed, so no call was charged twice.
    const unanswered = rows.filter((row) => !answered.has(row.id)).length;
    expect(unanswered).toBeLessThanOrEqual(failed);
    // Debits answered but not in Postgres were lost with a node before they were flushed: the caller
    // got those calls free; Redis and Postgres still agree (reconciliation above), so no credit was lost.
    const inPostgres = new Set(rows.map((row) => row.id));
    return { answered: answered.size, failed, lostWithNode: [...answered].filter((id) => !inPostgres.has(id)).length, unanswered };
  };

  it('spreads the ledger shards over every primary, and every debit stays in one slot', async () => {
    const keyspace = new CreditKeyspace(clusters.config.ledger.stream, clusters.config.ledger.shards);
    const shardsPerPrimary = new Map<number, number>();
    for (const stream of keyspace.streams) {
      const primary = await clusters.redisCluster.primaryOf(calculateSlot(stream));
      shardsPerPrimary.set(primary, (shardsPerPrimary.get(primary) ?? 0) + 1);
    }
    expect([...shardsPerPrimary.values()]).toEqual([4, 4, 4]);
    await Promise.all(keys.map((_, key) => debit(key)));
    expect(calls.filter((c) => c.error)).toEqual([]);
    await expectBooksHold();
  });

  it('loses nothing when a Redis primary is killed under traffic (its replica takes over)', async () => {
    let stop!: () => void;
    const running = traffic(new Promise<void>((resolve) => (stop = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const [victim] = await clusters.redisCluster.primaryPorts();
    const killedAt = Date.now();
    await clusters.redisCluster.kill(victim);
    await clusters.redisCluster.waitUntilHealthy();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    stop();
    await running;
    const recovery = recoveredAfter(killedAt);
    expect(recovery).toBeLessThan(30_000);
    const books = await expectBooksHold();
    process.stdout.write(`Redis primary killed: calls succeed on every key again after ${(recovery / 1000).toFixed(2)} s; ${JSON.stringify(books)}\n`);
    await clusters.redisCluster.restart(victim);
    await clusters.redisCluster.waitUntilHealthy();
  });

  it('loses no credit when a primary comes back empty before its replica took over', async () => {
    let stop!: () => void;
    const running = traffic(new Promise<void>((resolve) => (stop = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const [victim] = await clusters.redisCluster.primaryPorts();
    const restartedAt = Date.now();
    await clusters.redisCluster.restartEmpty(victim);
    await clusters.redisCluster.waitUntilHealthy();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    stop();
    await running;
    const recovery = recoveredAfter(restartedAt);
    expect(recovery).toBeLessThan(30_000);
    const books = await expectBooksHold();
    process.stdout.write(`Redis primary restarted empty: calls succeed on every key again after ${(recovery / 1000).toFixed(2)} s; ${JSON.stringify(books)}\n`);
  });

  it('keeps serving when a NATS server is killed under traffic', async () => {
    let stop!: () => void;
    const running = traffic(new Promise<void>((resolve) => (stop = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const killedAt = Date.now();
    await clusters.natsCluster.kill(1);
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    stop();
    await running;
    const recovery = recoveredAfter(killedAt);
    expect(recovery).toBeLessThan(15_000);
    const books = await expectBooksHold();
    process.stdout.write(`NATS server killed: calls succeed on every key again after ${(recovery / 1000).toFixed(2)} s; ${JSON.stringify(books)}\n`);
    await clusters.natsCluster.restart(1);
  });
});
