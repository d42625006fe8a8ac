import { randomUUID } from 'node:crypto';
import { connect, createServer, type Socket } from 'node:net';
import { type ManagedProcess, startRedisServer } from '@appcat/testing';
import type { Redis } from 'ioredis';
import { connectRedis } from '@appcat/redis';
import type { LedgerConfig } from '../src/config/payments-config.js';
import { CreditKeyspace } from '../src/persistence/credit-keyspace.js';
import { CreditStore } from '../src/persistence/credit-store.js';
import { issueApiKey } from '../src/keys/api-key.js';
import type { LedgerEntry } from '../src/ledger/ledger-batch.js';
import { LedgerRepository } from '../src/persistence/ledger-repository.js';
import { LedgerFlusher } from '../src/ledger/ledger-flusher.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';
import { eventually } from './support/test-config.js';

/**
 * A TCP proxy to Redis that can lose one answer: armed with a marker, it passes the commands on but,
 * instead of passing back the first reply holding the marker, cuts the client's connection — the command
 * ran in Redis and its answer was lost, as when a node dies while replying.
 */
async function startAnswerLosingProxy(redisPort: number) {
  let marker: string | null = null;
  let lost = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(redisPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => (sockets.delete(socket), client.destroy(), upstream.destroy()));
    }
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (marker !== null && chunk.includes(marker)) {
        marker = null;
        lost += 1;
        client.destroy();
        return;
      }
      client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    loseNextAnswerContaining: (text: string) => void (marker = text),
    get lost() {
      return lost;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('ledger flusher (real Redis and Postgres)', () => {
  const keyspace = new CreditKeyspace('credit:ledger', 1);
  const STREAM = keyspace.streams[0];
  let server: ManagedProcess;
  let db: TestDatabase;
  let redis: Redis;
  let store: CreditStore;
  const flushers: LedgerFlusher[] = [];
  const connections: Redis[] = [];

  const ledger = (overrides: Partial<LedgerConfig> = {}): LedgerConfig => ({
    stream: 'credit:ledger',
    shards: 1,
    group: 'ledger-flushers',
    consumer: `test-${randomUUID().slice(0, 8)}`,
    batchSize: 500,
    blockMs: 100,
    flushIntervalMs: 0,
    claimIdleMs: 30_000,
    ...overrides,
  });

  const newFlusher = (config: LedgerConfig, streams: readonly string[] = keyspace.streams): LedgerFlusher => {
    const connection = connectRedis(server.url);
    connections.push(connection);
    const flusher = new LedgerFlusher(connection, new LedgerRepository(db.pool), config, streams);
    flushers.push(flusher);
    return flusher;
  };

  /** A key in Postgres and in Redis with `credit` µUSD. */
  const createKey = async (credit: bigint) => {
    const issued = issueApiKey();
    const { rows } = await db.pool.query<{ id: string }>(
      'INSERT INTO api_keys (key_hash, prefix, topped_up_micros) VALUES ($1, $2, $3) RETURNING id',
      [issued.keyHash, issued.prefix, credit.toString()],
    );
    await store.sync(issued.keyHash, { id: rows[0].id, toppedUp: credit, spent: 0n, revoked: false });
    return { id: rows[0].id, keyHash: issued.keyHash };
  };

  const debit = (keyHash: string) =>
    store.debit(keyHash, { debitId: randomUUID(), amount: 3_000n, route: 'apps.get', chargedAtMs: Date.now() });

  const spentOf = async (id: string): Promise<bigint> => {
    const { rows } = await db.pool.query<{ spent_micros: string }>('SELECT spent_micros FROM api_keys WHERE id = $1', [
      id,
    ]);
    return BigInt(rows[0].spent_micros);
  };
  const debitRows = async (id: string): Promise<number> =>
    Number(
      (await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM credit_debits WHERE api_key_id = $1', [id]))
        .rows[0].n,
    );

  beforeAll(async () => {
    server = await startRedisServer();
    db = await createTestDatabase('ledger');
    redis = connectRedis(server.url);
    store = new CreditStore(redis, keyspace);
  });

  afterEach(async () => {
    await Promise.all(flushers.splice(0).map((flusher) => flusher.stop()));
    connections.splice(0).forEach((connection) => connection.disconnect());
    await redis.flushall();
  });

  afterAll(async () => {
    redis.disconnect();
    await server.stop();
    await db.drop();
  });

  it('counts a batch once however often it is applied', async () => {
    const a = await createKey(1_000_000n);
    const b = await createKey(1_000_000n);
    const entry = (keyId: string, amount: bigint): LedgerEntry => ({
      streamId: '0-1',
      debitId: randomUUID(),
      keyId,
      amount,
      route: 'apps.search',
      chargedAtMs: BigInt(Date.now()),
    });
    const batch = [entry(a.id, 3_000n), entry(a.id, 3_000n), entry(b.id, 5_000n)];
    expect(await new LedgerRepository(db.pool).applyBatch(batch)).toEqual({ inserted: 3, orphans: 0 });
    expect(await new LedgerRepository(db.pool).applyBatch(batch)).toEqual({ inserted: 0, orphans: 0 });
    // A batch that repeats an entry, and mixes old and new ones, counts only the new ones.
    const fresh = entry(b.id, 7_000n);
    expect(await new LedgerRepository(db.pool).applyBatch([...batch, fresh, fresh])).toEqual({
      inserted: 1,
      orphans: 0,
    });
    expect(await spentOf(a.id)).toBe(6_000n);
    expect(await spentOf(b.id)).toBe(12_000n);
    expect(await debitRows(a.id)).toBe(2);
    expect(await debitRows(b.id)).toBe(2);
  });

  it('skips debits of keys Postgres does not have instead of blocking the batch', async () => {
    const a = await createKey(1_000_000n);
    const result = await new LedgerRepository(db.pool).applyBatch([
      { streamId: '0-1', debitId: randomUUID(), keyId: a.id, amount: 3_000n, route: 'r', chargedAtMs: 1n },
      { streamId: '0-2', debitId: randomUUID(), keyId: randomUUID(), amount: 3_000n, route: 'r', chargedAtMs: 1n },
    ]);
    expect(result).toEqual({ inserted: 1, orphans: 1 });
    expect(await spentOf(a.id)).toBe(3_000n);
  });

  it('gets spent credit into Postgres as it is debited (a blocked read wakes for it) and empties the stream', async () => {
    // Reads block for a minute: credit written well before that was written because new debits woke
    // the read, not because a read timed out, however slow the machine.
    const BLOCK_MS = 60_000;
    const key = await createKey(1_000_000n);
    const flusher = newFlusher(ledger({ blockMs: BLOCK_MS }));
    await flusher.ensureGroup();
    flusher.start();
    const started = Date.now();
    for (let i = 0; i < 20; i += 1) expect((await debit(key.keyHash)).kind).toBe('ok');
    const spent = await eventually(
      () => spentOf(key.id),
      (value) => value === 60_000n,
    );
    const elapsed = Date.now() - started;
    expect(spent).toBe(60_000n);
    expect(elapsed).toBeLessThan(BLOCK_MS / 2);
    expect(await debitRows(key.id)).toBe(20);
    expect(
      await eventually(
        () => redis.xlen(STREAM),
        (n) => n === 0,
      ),
    ).toBe(0);
    // A debit wakes the blocked read, so stopping does not wait the minute out.
    const stopped = flusher.stop();
    expect((await debit(key.keyHash)).kind).toBe('ok');
    await stopped;
    expect(await spentOf(key.id)).toBe(63_000n);
  });

  it('lets debits gather for the flush interval, so steady traffic makes few transactions', async () => {
    const key = await createKey(1_000_000n);
    // Five seconds: far more than five local Redis calls take on a loaded machine (600 ms was not).
    const flusher = newFlusher(ledger({ flushIntervalMs: 5_000 }));
    const batches: number[] = [];
    flusher.onFlushed = (count) => batches.push(count);
    await flusher.ensureGroup();
    flusher.start();
    expect((await debit(key.keyHash)).kind).toBe('ok');
    await eventually(
      () => Promise.resolve(batches.length),
      (n) => n === 1,
    );
    // Five more while the first batch's interval runs: one transaction, not five.
    for (let i = 0; i < 5; i += 1) {
      expect((await debit(key.keyHash)).kind).toBe('ok');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(
      await eventually(
        () => spentOf(key.id),
        (value) => value === 18_000n,
      ),
    ).toBe(18_000n);
    expect(batches).toEqual([1, 5]);
  });

  it('reads on at once after a full batch, whatever the interval', async () => {
    const key = await createKey(1_000_000n);
    for (let i = 0; i < 7; i += 1) expect((await debit(key.keyHash)).kind).toBe('ok');
    // An interval of two minutes: had a full batch waited it out, the credit would not be written
    // within eventually's half a minute.
    const flusher = newFlusher(ledger({ batchSize: 3, flushIntervalMs: 120_000 }));
    const batches: number[] = [];
    flusher.onFlushed = (count) => batches.push(count);
    await flusher.ensureGroup();
    flusher.start();
    // 3 + 3 come at once; only the last, short batch would wait before the next read.
    expect(
      await eventually(
        () => spentOf(key.id),
        (value) => value === 21_000n,
      ),
    ).toBe(21_000n);
    expect(batches).toEqual([3, 3, 1]);
  });

  it('reclaims debits a dead consumer read and never acknowledged', async () => {
    const key = await createKey(1_000_000n);
    const config = ledger({ claimIdleMs: 300 });
    await newFlusher(config).ensureGroup();
    for (let i = 0; i < 5; i += 1) await debit(key.keyHash);
    // A replica reads the batch and dies before writing it.
    const dead = await redis.xreadgroup('GROUP', config.group, 'dead-replica', 'COUNT', 100, 'STREAMS', STREAM, '>');
    expect(dead?.[0]?.[1]).toHaveLength(5);
    const survivor = newFlusher({ ...config, consumer: 'survivor' });
    survivor.start();
    expect(
      await eventually(
        () => spentOf(key.id),
        (value) => value === 15_000n,
      ),
    ).toBe(15_000n);
    const pending = (await redis.xpending(STREAM, config.group)) as [number, ...unknown[]];
    expect(pending[0]).toBe(0);
  });

  it('does not count twice debits that were written but not acknowledged before a crash', async () => {
    const key = await createKey(1_000_000n);
    const config = ledger({ claimIdleMs: 300 });
    await newFlusher(config).ensureGroup();
    for (let i = 0; i < 4; i += 1) await debit(key.keyHash);
    // The crashed replica committed its batch to Postgres, then died before XACK.
    const read = (await redis.xreadgroup('GROUP', config.group, 'crashed', 'COUNT', 100, 'STREAMS', STREAM, '>')) as [
      string,
      [string, string[]][],
    ][];
    const entries = read[0][1].map(([streamId, fields]) => {
      const get = (name: string) => fields[fields.indexOf(name) + 1];
      return {
        streamId,
        debitId: get('debit'),
        keyId: get('key'),
        amount: BigInt(get('amount')),
        route: get('route'),
        chargedAtMs: BigInt(get('at')),
      };
    });
    await new LedgerRepository(db.pool).applyBatch(entries);
    expect(await spentOf(key.id)).toBe(12_000n);
    newFlusher({ ...config, consumer: 'survivor' }).start();
    await eventually(
      async () => ((await redis.xpending(STREAM, config.group)) as [number])[0],
      (n) => n === 0,
    );
    expect(await spentOf(key.id)).toBe(12_000n);
    expect(await debitRows(key.id)).toBe(4);
  });

  it('reads again at once the entries of a read whose answer was lost with its connection', async () => {
    const key = await createKey(1_000_000n);
    const proxy = await startAnswerLosingProxy(server.port);
    try {
      // No reclaim can rescue the entries within the test: only the flusher's own re-read can.
      const config = ledger({ claimIdleMs: 3_600_000 });
      const connection = connectRedis(
        `redis://127.0.0.1:${proxy.port}`,
        LedgerFlusher.connectionOptions(config, 1_000),
      );
      connection.on('error', () => undefined);
      connections.push(connection);
      const flusher = new LedgerFlusher(connection, new LedgerRepository(db.pool), config, keyspace.streams);
      await flusher.ensureGroup();
      flusher.start();
      // The read that takes these debits runs in Redis (they become this consumer's pending entries), and its answer is lost.
      proxy.loseNextAnswerContaining('apps.get');
      for (let i = 0; i < 3; i += 1) expect((await debit(key.keyHash)).kind).toBe('ok');
      expect(
        await eventually(
          () => spentOf(key.id),
          (value) => value === 9_000n,
          20_000,
        ),
      ).toBe(9_000n);
      await flusher.stop();
      expect(proxy.lost).toBe(1);
      expect(await debitRows(key.id)).toBe(3);
      expect(((await redis.xpending(STREAM, config.group)) as [number])[0]).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it('recreates its consumer group after Redis lost everything', async () => {
    const key = await createKey(1_000_000n);
    const flusher = newFlusher(ledger());
    flusher.start();
    await debit(key.keyHash);
    await eventually(
      () => spentOf(key.id),
      (value) => value === 3_000n,
    );
    await redis.flushall();
    // The key is reloaded from Postgres (spent 3000) and keeps being debited.
    await store.sync(key.keyHash, { id: key.id, toppedUp: 1_000_000n, spent: 3_000n, revoked: false });
    await debit(key.keyHash);
    await debit(key.keyHash);
    expect(
      await eventually(
        () => spentOf(key.id),
        (value) => value === 9_000n,
      ),
    ).toBe(9_000n);
  });

  it('writes out what is left in the stream when it stops', async () => {
    const key = await createKey(1_000_000n);
    const flusher = newFlusher(ledger());
    await flusher.ensureGroup();
    for (let i = 0; i < 7; i += 1) await debit(key.keyHash);
    await flusher.stop();
    expect(await spentOf(key.id)).toBe(21_000n);
    expect(await redis.xlen(STREAM)).toBe(0);
  });

  it('drains every shard of a sharded ledger, in one statement per read', async () => {
    const sharded = new CreditKeyspace('credit:sharded', 4);
    const shardedStore = new CreditStore(redis, sharded);
    const keys = [];
    // Keys until every shard has one (key hashes are random).
    while (new Set(keys.map((key) => sharded.shardOf(key.keyHash))).size < sharded.shards) {
      const issued = issueApiKey();
      const { rows } = await db.pool.query<{ id: string }>(
        'INSERT INTO api_keys (key_hash, prefix, topped_up_micros) VALUES ($1, $2, 1000000) RETURNING id',
        [issued.keyHash, issued.prefix],
      );
      await shardedStore.sync(issued.keyHash, { id: rows[0].id, toppedUp: 1_000_000n, spent: 0n, revoked: false });
      keys.push({ id: rows[0].id, keyHash: issued.keyHash });
    }
    for (const key of keys) {
      const outcome = await shardedStore.debit(key.keyHash, {
        debitId: randomUUID(),
        amount: 3_000n,
        route: 'apps.get',
        chargedAtMs: Date.now(),
      });
      expect(outcome.kind).toBe('ok');
    }
    for (const stream of sharded.streams) expect(await redis.xlen(stream)).toBeGreaterThan(0);
    const flusher = newFlusher(ledger({ stream: 'credit:sharded' }), sharded.streams);
    await flusher.ensureGroup();
    await flusher.stop();
    for (const key of keys) expect(await spentOf(key.id)).toBe(3_000n);
    for (const stream of sharded.streams) expect(await redis.xlen(stream)).toBe(0);
  });

  it('moves malformed entries aside instead of retrying them forever', async () => {
    const key = await createKey(1_000_000n);
    const flusher = newFlusher(ledger());
    await flusher.ensureGroup();
    await redis.xadd(STREAM, '*', 'debit', 'x', 'key', 'not-a-uuid', 'amount', '-5', 'route', 'r', 'at', '1');
    await debit(key.keyHash);
    await flusher.stop();
    expect(await spentOf(key.id)).toBe(3_000n);
    expect(await redis.xlen(`${STREAM}:dead`)).toBe(1);
    expect(await redis.xlen(STREAM)).toBe(0);
  });
});
