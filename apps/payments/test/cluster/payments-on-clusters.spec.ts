import {
  type AdminKeyCreated,
  type AdminReconcileReply,
  type DebitReply,
  type ReleaseReply,
  type ReserveReply,
  hashApiKey,
  PRICE_PER_CALL_MICROS,
  Subject,
} from '@appcat/contracts';
import { jest } from '@jest/globals';
import calculateSlot from 'cluster-key-slot';
import { CreditKeyspace } from '../../src/persistence/credit-keyspace.js';
import { startPaymentsOnClusters, type PaymentsOnClusters } from './clusters.js';

// A guard against a hang, above the sum of the deadlines below: each wait ends on its condition, and
// nothing here asserts how fast a failover is (the times are printed).
jest.setTimeout(600_000);

const KEYS = 12;
const CREDIT = 10_000_000n;
/** How long a condition may take before the test gives up on it: a guard, not a measure of speed. */
const DEADLINE_MS = 120_000;
/** Callers give up on a request after this (the gateway's NATS_REQUEST_TIMEOUT_MS plays this part). */
const REQUEST_TIMEOUT_MS = 3_000;

interface Call {
  key: number;
  /** When the call was sent and when it ended (ms). */
  at: number;
  end?: number;
  debitId?: string;
  error?: string;
}

interface FaultOutcome {
  /** Ms from the fault until every key had been debited again after the last failed call. */
  recoveryMs: number;
  /**
   * Per key, the debits Redis may have lost: calls sent before the cluster was whole again (answered or
   * failed: any may have debited) minus the key's debits in Postgres just before the fault. Writes made
   * during the fault count too: a primary restarted empty may take some before its replica, promoted
   * meanwhile, wins and replaces its data.
   */
  exposed: number[];
}

/**
 * Payments on a 3-primary Redis Cluster (one replica each) and 3 routed nats-servers, two replicas,
 * under credit traffic while a node dies. After each fault: no call charged twice, no credit lost
 * (no balance in Redis below what Postgres implies), Postgres consistent, and the time until calls
 * succeed again on every key printed. A fault that loses Redis data (a primary back empty; a failover
 * losing writes not yet replicated) may forgive debits not yet in Postgres, as one Redis restarted empty
 * does (docs/credits.md "What a Redis loss forgives"): never more than the debits made before the fault
 * that Postgres did not have.
 */
describe('payments on Redis Cluster and a NATS cluster', () => {
  let clusters: PaymentsOnClusters;
  let keys: AdminKeyCreated[];
  const calls: Call[] = [];
  const inFlight = new Set<Call>();
  /** Differences reconciliation reported after earlier faults, accepted as forgiven (µUSD, by key id). */
  const forgiven = new Map<string, bigint>();
  /** Stops the traffic of a test that ended without stopping it, so nothing outlives the suite. */
  let stopTraffic: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    clusters = await startPaymentsOnClusters('cluster', 2);
    keys = [];
    for (let i = 0; i < KEYS; i++)
      keys.push(
        await clusters.clients[i % 3].call<AdminKeyCreated>(Subject.AdminKeysCreate, { credit: CREDIT.toString() }),
      );
  });

  afterAll(async () => {
    await stopTraffic?.();
    await clusters?.stop();
  });

  const debit = async (key: number, client = key % 3): Promise<Call> => {
    const call: Call = { key, at: Date.now() };
    inFlight.add(call);
    try {
      const reply = await clusters.clients[client].request<DebitReply>(
        Subject.CreditsDebit,
        {
          keyHash: hashApiKey(keys[key].key),
          amount: PRICE_PER_CALL_MICROS.toString(),
          route: 'apps.search',
          requestId: `r${calls.length}`,
        },
        REQUEST_TIMEOUT_MS,
      );
      if (reply.ok) call.debitId = reply.value.debitId;
      else call.error = reply.error.code;
    } catch (error) {
      call.error = (error as Error).message;
    }
    call.end = Date.now();
    inFlight.delete(call);
    calls.push(call);
    return call;
  };

  /**
   * Debits from 6 concurrent callers while `during` runs, stopped however `during` ends: a loop left
   * running after a failed test spins on closed connections once the suite stops, and jest never ends.
   */
  const withTraffic = async <T>(during: () => Promise<T>): Promise<T> => {
    let stopped = false;
    let n = 0;
    const workers = Array.from({ length: 6 }, async (_, worker) => {
      while (!stopped) {
        const call = await debit((worker + 6 * n++) % KEYS);
        // A call that failed at once (a connection being replaced) must not make a busy loop.
        if (call.error) await sleep(20);
      }
    });
    const stop = async () => {
      stopped = true;
      await Promise.all(workers);
    };
    stopTraffic = stop;
    try {
      return await during();
    } finally {
      await stop();
      stopTraffic = null;
    }
  };

  /** Resolves once `condition` holds; fails the test, naming `what`, after DEADLINE_MS. */
  const until = async (what: string, condition: () => boolean | Promise<boolean>): Promise<void> => {
    const deadline = Date.now() + DEADLINE_MS;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`${what}: not after ${DEADLINE_MS} ms`);
      await sleep(50);
    }
  };

  const everyKeyDebitedSince = (since: number) =>
    keys.every((_, key) => calls.some((c) => c.key === key && c.debitId && c.at >= since));

  /** The end of the last failed call that ended after `since` (`since` if none). */
  const lastFailureAfter = (since: number) =>
    Math.max(since, ...calls.filter((c) => c.error && c.end! >= since).map((c) => c.end!));

  const debitsInPostgres = async (): Promise<Map<string, number>> => {
    const { rows } = await clusters.db.pool.query<{ api_key_id: string; n: string }>(
      'SELECT api_key_id, count(*) AS n FROM credit_debits GROUP BY 1',
    );
    return new Map(rows.map((row) => [row.api_key_id, Number(row.n)]));
  };

  /**
   * Runs traffic, injects a fault once every key is being debited, waits for `healed`, then until no
   * call sent before the fault is still in flight and every key has been debited by a call sent after
   * the last failure. Returns the time that took from the fault, and what Redis may have lost.
   */
  const underFault = async (inject: () => Promise<void>, healed: () => Promise<void>): Promise<FaultOutcome> => {
    const { recoveryMs, healedAt, inPostgres } = await withTraffic(async () => {
      const warmFrom = Date.now();
      await until('every key debited before the fault', () => everyKeyDebitedSince(warmFrom));
      const inPostgres = await debitsInPostgres();
      const faultAt = Date.now();
      await inject();
      await healed();
      const healedAt = Date.now();
      await until('every key debited again after the fault', () => {
        if ([...inFlight].some((c) => c.at < faultAt)) return false;
        return everyKeyDebitedSince(lastFailureAfter(faultAt) + 1);
      });
      const lastFailure = lastFailureAfter(faultAt);
      const servedAgain = keys.map(
        (_, key) => calls.find((c) => c.key === key && c.debitId && c.at > lastFailure)!.end!,
      );
      return { recoveryMs: Math.max(...servedAgain) - faultAt, healedAt, inPostgres };
    });
    // Counted once the traffic has stopped, so that calls still in flight at recovery count too.
    const exposed = keys.map(
      (key, index) => calls.filter((c) => c.key === index && c.at < healedAt).length - (inPostgres.get(key.id) ?? 0),
    );
    return { recoveryMs, exposed };
  };

  // Waits until the write-behind is done (at most 60 s: a guard), then answers.
  const reconcile = () =>
    clusters.clients[0].call<AdminReconcileReply>(Subject.AdminReconcile, { waitMs: 60_000 }, 90_000);

  /**
   * No debit in Postgres the callers did not ask for; Postgres's totals equal its rows; no key holds less
   * in Redis than Postgres implies; and Redis holds more only where `fault` lost Redis data, by at most
   * the debits it exposed (FaultOutcome.exposed).
   */
  const expectBooksHold = async (fault: FaultOutcome | null, losesRedisData: boolean) => {
    const reply = await reconcile();
    const beyondBound = reply.differences.flatMap((difference) => {
      const key = keys.findIndex((k) => k.id === difference.id);
      const before = forgiven.get(difference.id) ?? 0n;
      const allowed =
        losesRedisData && fault ? before + BigInt(Math.max(0, fault.exposed[key])) * PRICE_PER_CALL_MICROS : before;
      if (difference.status === 'forgiven' && BigInt(difference.difference) <= allowed) return [];
      return [
        {
          key: difference.prefix,
          status: difference.status,
          difference: difference.difference,
          allowed: String(allowed),
        },
      ];
    });
    // Accepted before asserting, so that a failure here is not repeated by the tests after it. A key
    // reloaded from Postgres starts over: what it had been forgiven is in its reloaded balance.
    forgiven.clear();
    for (const difference of reply.differences) forgiven.set(difference.id, BigInt(difference.difference));
    expect(beyondBound).toEqual([]);
    expect(reply).toMatchObject({ ledgerBacklog: 0, keysChecked: KEYS });
    if (reply.differences.length === 0) expect(reply.exact).toBe(true);

    const { rows } = await clusters.db.pool.query<{ id: string }>('SELECT id FROM credit_debits');
    const answered = new Set(calls.flatMap((c) => (c.debitId ? [c.debitId] : [])));
    const failed = calls.filter((c) => c.error).length;
    // A debit id in Postgres that no caller was given can only come from a call whose reply was lost with
    // a dying node: never more of them than calls that failed, so no call was charged twice.
    const unanswered = rows.filter((row) => !answered.has(row.id)).length;
    expect(unanswered).toBeLessThanOrEqual(failed);
    // Debits answered but not in Postgres were lost with a node before they were flushed: the caller
    // got those calls free.
    const inPostgres = new Set(rows.map((row) => row.id));
    const forgivenMicros = [...forgiven.values()].reduce((sum, value) => sum + value, 0n);
    return {
      answered: answered.size,
      failed,
      lostWithNode: [...answered].filter((id) => !inPostgres.has(id)).length,
      unanswered,
      forgivenMicros: String(forgivenMicros),
    };
  };

  const report = (fault: string, outcome: FaultOutcome, books: object) =>
    process.stdout.write(
      `${fault}: calls succeed on every key again ${(outcome.recoveryMs / 1000).toFixed(2)} s after it; ${JSON.stringify(books)}\n`,
    );

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
    await expectBooksHold(null, false);
  });

  it('holds and releases a call on every shard: each hold script stays in one slot', async () => {
    const released = await Promise.all(
      keys.map(async (created, key) => {
        const client = clusters.clients[key % 3];
        const request = {
          keyHash: hashApiKey(created.key),
          amount: PRICE_PER_CALL_MICROS.toString(),
          route: 'apps.search',
          requestId: `hold-${key}`,
        };
        const reserved = await client.call<ReserveReply>(Subject.CreditsReserve, request, REQUEST_TIMEOUT_MS);
        const hold = { ...request, reservationId: reserved.reservationId };
        return client.call<ReleaseReply>(Subject.CreditsRelease, hold, REQUEST_TIMEOUT_MS);
      }),
    );
    expect(released).toEqual(keys.map(() => ({ released: true })));
    await expectBooksHold(null, false);
  });

  it('loses nothing when a Redis primary is killed under traffic (its replica takes over)', async () => {
    const [victim] = await clusters.redisCluster.primaryPorts();
    const outcome = await underFault(
      () => clusters.redisCluster.kill(victim),
      () => clusters.redisCluster.waitUntilHealthy(),
    );
    // Replication is asynchronous: a debit the primary took just before it died may be missing on its replica.
    report('Redis primary killed', outcome, await expectBooksHold(outcome, true));
    await clusters.redisCluster.restart(victim);
    await clusters.redisCluster.waitUntilHealthy();
    await clusters.redisCluster.waitUntilReplicasSynced();
  });

  it('loses no credit when a primary comes back empty before its replica took over', async () => {
    const [victim] = await clusters.redisCluster.primaryPorts();
    const outcome = await underFault(
      async () => {
        await clusters.redisCluster.restartEmpty(victim);
      },
      () => clusters.redisCluster.waitUntilHealthy(),
    );
    report('Redis primary restarted empty', outcome, await expectBooksHold(outcome, true));
    await clusters.redisCluster.waitUntilReplicasSynced();
  });

  it('keeps serving when a NATS server is killed under traffic', async () => {
    const outcome = await underFault(
      () => clusters.natsCluster.kill(1),
      async () => undefined,
    );
    report('NATS server killed', outcome, await expectBooksHold(outcome, false));
    await clusters.natsCluster.restart(1);
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
