import { randomUUID } from 'node:crypto';
import { type ManagedProcess, startRedisServer } from '@appcat/testing';
import type { Redis } from 'ioredis';
import { connectRedis } from '@appcat/redis';
import { CreditStore } from '../src/persistence/credit-store.js';
import type { KeySnapshot } from '../src/persistence/key-snapshot.js';
import { hashApiKey } from '@appcat/contracts';
import { issueApiKey } from '../src/keys/api-key.js';
import { testKeyspace } from './support/test-config.js';

const STREAM = testKeyspace.streams[0];

describe('credit store (Lua in a real Redis)', () => {
  let server: ManagedProcess;
  let redis: Redis;
  let store: CreditStore;

  beforeAll(async () => {
    server = await startRedisServer();
    redis = connectRedis(server.url);
    store = new CreditStore(redis, testKeyspace);
  });

  afterAll(async () => {
    redis.disconnect();
    await server.stop();
  });

  beforeEach(() => redis.flushall());

  const snapshot = (toppedUp: bigint, spent = 0n, revoked = false): KeySnapshot => ({
    id: randomUUID(),
    toppedUp,
    spent,
    revoked,
  });
  const debit = (keyHash: string, amount = 3000n) =>
    store.debit(keyHash, { debitId: randomUUID(), amount, route: 'apps.search', chargedAtMs: Date.now() });

  it('debits down to the last whole call and never below zero', async () => {
    const keyHash = issueApiKey().keyHash;
    await store.sync(keyHash, snapshot(7_000n));
    expect(await debit(keyHash)).toEqual({ kind: 'ok', balance: 4_000n });
    expect(await debit(keyHash)).toEqual({ kind: 'ok', balance: 1_000n });
    expect(await debit(keyHash)).toEqual({ kind: 'insufficient', balance: 1_000n });
    expect(await debit(keyHash, 1_000n)).toEqual({ kind: 'ok', balance: 0n });
    expect(await debit(keyHash, 1n)).toEqual({ kind: 'insufficient', balance: 0n });
    expect(await redis.xlen(STREAM)).toBe(3);
  });

  it('lets exactly as many concurrent debits through as the balance pays for', async () => {
    const keyHash = issueApiKey().keyHash;
    await store.sync(keyHash, snapshot(30_000n));
    const clients = Array.from({ length: 5 }, () => connectRedis(server.url));
    try {
      const stores = clients.map((client) => new CreditStore(client, testKeyspace));
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          stores[i % stores.length].debit(keyHash, {
            debitId: randomUUID(),
            amount: 3_000n,
            route: 'r',
            chargedAtMs: Date.now(),
          }),
        ),
      );
      expect(outcomes.filter((o) => o.kind === 'ok')).toHaveLength(10);
      expect(outcomes.filter((o) => o.kind === 'insufficient')).toHaveLength(40);
      expect(await store.balance(keyHash)).toEqual({ kind: 'ok', balance: 0n });
      expect(await redis.xlen(STREAM)).toBe(10);
    } finally {
      clients.forEach((client) => client.disconnect());
    }
  });

  it('writes each debit to the ledger stream with its id, key id, amount, route and time', async () => {
    const keyHash = issueApiKey().keyHash;
    const key = snapshot(10_000n);
    await store.sync(keyHash, key);
    const debitId = randomUUID();
    await store.debit(keyHash, { debitId, amount: 3_000n, route: 'bundles.get', chargedAtMs: 1_700_000_000_123 });
    const [[, fields]] = await redis.xrange(STREAM, '-', '+');
    expect(fields).toEqual([
      'debit',
      debitId,
      'key',
      key.id,
      'amount',
      '3000',
      'route',
      'bundles.get',
      'at',
      '1700000000123',
    ]);
  });

  it('tells a key it does not hold (missing) from one known to be unknown', async () => {
    const keyHash = hashApiKey('ak_nothing');
    expect(await debit(keyHash)).toEqual({ kind: 'missing' });
    expect(await store.balance(keyHash)).toEqual({ kind: 'missing' });
    await store.markUnknown(keyHash, 30_000);
    expect(await debit(keyHash)).toEqual({ kind: 'unknown' });
    expect(await redis.pttl(testKeyspace.unknownMarkerOf(keyHash))).toBeGreaterThan(29_000);
    // A key created meanwhile clears the negative cache as it is synced.
    await store.sync(keyHash, snapshot(3_000n));
    expect(await debit(keyHash)).toEqual({ kind: 'ok', balance: 0n });
    expect(await redis.exists(testKeyspace.unknownMarkerOf(keyHash))).toBe(0);
  });

  it('does not mark a key unknown that a sync has just created', async () => {
    const keyHash = issueApiKey().keyHash;
    await store.sync(keyHash, snapshot(3_000n));
    await store.markUnknown(keyHash, 30_000);
    expect(await debit(keyHash)).toEqual({ kind: 'ok', balance: 0n });
  });

  it('keeps a top-up that a load which read Postgres before it would overwrite', async () => {
    const keyHash = issueApiKey().keyHash;
    const id = randomUUID();
    const beforeTopUp: KeySnapshot = { id, toppedUp: 10_000n, spent: 0n, revoked: false };
    const afterTopUp: KeySnapshot = { id, toppedUp: 15_000n, spent: 0n, revoked: false };
    // The top-up's sync lands first and creates the hash; the stale load arrives late.
    await store.sync(keyHash, afterTopUp);
    expect(await store.sync(keyHash, beforeTopUp)).toEqual({ balance: 15_000n, toppedUp: 15_000n, revoked: false });
  });

  it('adds only the top-ups a held balance has not seen, keeping the debits Redis made', async () => {
    const keyHash = issueApiKey().keyHash;
    const id = randomUUID();
    await store.sync(keyHash, { id, toppedUp: 10_000n, spent: 0n, revoked: false });
    await debit(keyHash);
    // Postgres has not seen the debit yet (spent 0); the top-up must add 5000, not reset to 15000.
    expect(await store.sync(keyHash, { id, toppedUp: 15_000n, spent: 0n, revoked: false })).toEqual({
      balance: 12_000n,
      toppedUp: 15_000n,
      revoked: false,
    });
    // Replaying the same snapshot changes nothing.
    expect((await store.sync(keyHash, { id, toppedUp: 15_000n, spent: 0n, revoked: false })).balance).toBe(12_000n);
  });

  it('converges to top-ups minus debits whatever order loads, top-ups and debits arrive in', async () => {
    for (let round = 0; round < 40; round += 1) {
      const keyHash = issueApiKey().keyHash;
      const id = randomUUID();
      // Postgres snapshots after 0..4 top-ups of 6000 each; spent stays 0 (nothing flushed).
      const snapshots = Array.from({ length: 5 }, (_, n) => ({
        id,
        toppedUp: BigInt(n) * 6_000n + 3_000n,
        spent: 0n,
        revoked: false,
      }));
      const events: (() => Promise<unknown>)[] = [...snapshots.map((s) => () => store.sync(keyHash, s))];
      let debitsOk = 0n;
      for (let d = 0; d < 4; d += 1) {
        events.push(async () => {
          if ((await debit(keyHash)).kind === 'ok') debitsOk += 3_000n;
        });
      }
      // A random interleaving, except that some load comes first (debits before any load see "missing").
      const shuffled = events.slice(1).sort(() => Math.random() - 0.5);
      for (const event of [events[Math.floor(Math.random() * 5)], ...shuffled]) await event();
      const outcome = await store.balance(keyHash);
      expect(outcome).toEqual({ kind: 'ok', balance: 27_000n - debitsOk });
    }
  });

  it('keeps a key revoked when a stale load says it is active', async () => {
    const keyHash = issueApiKey().keyHash;
    const id = randomUUID();
    await store.sync(keyHash, { id, toppedUp: 9_000n, spent: 0n, revoked: true });
    expect((await store.sync(keyHash, { id, toppedUp: 9_000n, spent: 0n, revoked: false })).revoked).toBe(true);
    expect(await debit(keyHash)).toEqual({ kind: 'revoked' });
    expect(await store.balance(keyHash)).toEqual({ kind: 'revoked' });
    expect(await redis.xlen(STREAM)).toBe(0);
  });

  it('revokes a held key at once', async () => {
    const keyHash = issueApiKey().keyHash;
    const id = randomUUID();
    await store.sync(keyHash, { id, toppedUp: 9_000n, spent: 0n, revoked: false });
    expect((await debit(keyHash)).kind).toBe('ok');
    await store.sync(keyHash, { id, toppedUp: 9_000n, spent: 0n, revoked: true });
    expect(await debit(keyHash)).toEqual({ kind: 'revoked' });
  });

  it('loads a balance of topped-up minus spent, floored at zero', async () => {
    const a = issueApiKey().keyHash;
    const b = issueApiKey().keyHash;
    expect((await store.sync(a, snapshot(10_000n, 4_000n))).balance).toBe(6_000n);
    expect((await store.sync(b, snapshot(10_000n, 13_000n))).balance).toBe(0n);
  });

  it('stays exact beyond the integers a double can hold', async () => {
    const keyHash = issueApiKey().keyHash;
    await store.sync(keyHash, snapshot(9_007_199_254_740_993n));
    expect(await debit(keyHash, 1n)).toEqual({ kind: 'ok', balance: 9_007_199_254_740_992n });
    expect(await debit(keyHash, 9_007_199_254_740_993n)).toEqual({
      kind: 'insufficient',
      balance: 9_007_199_254_740_992n,
    });
    expect(await debit(keyHash, 9_007_199_254_740_991n)).toEqual({ kind: 'ok', balance: 1n });
  });
});
