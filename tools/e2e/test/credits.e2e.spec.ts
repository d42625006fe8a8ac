/*
 * Prepaid credits end to end: HTTP → gateway → payments (Redis + Postgres) → catalog → emulator,
 * every part real. Balances are read back through the public balance route and from Postgres.
 */
import { System } from './support/system.js';

const PRICE = 3000n;

describe('credit-paid calls through every service', () => {
  let system: System;

  beforeAll(async () => {
    system = await System.start({ paymentsReplicas: 2 });
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('serves each of the nine routes with upstream data, 0.003 each, recorded in Postgres', async () => {
    const created = await system.createKey('1');
    const { key } = created;
    const search = await system.get('/api/apps?term=chess', key);
    expect(search.status).toBe(200);
    expect(search.body.message).toBe('ok');
    const searchData = search.body.data as { resultCount: number; results: { trackName: string }[] };
    expect(searchData.resultCount).toBeGreaterThan(0);
    expect(searchData.results.some((r) => /chess/i.test(r.trackName))).toBe(true);
    expect(search.headers['x-credits-remaining']).toBe('0.997000');

    const app = await system.get('/api/apps/284882215', key);
    expect((app.body.data as { results: { trackId: number; bundleId: string }[] }).results[0]).toMatchObject({
      trackId: 284882215,
      bundleId: 'com.facebook.Facebook',
    });
    const byBundleId = await system.get('/api/apps/com.facebook.Facebook?country=US', key);
    expect((byBundleId.body.data as { results: { trackId: number }[] }).results[0].trackId).toBe(284882215);

    const reviews = await system.get('/api/apps/284882215/reviews?sort=helpful&page=2', key);
    expect((reviews.body.data as { results: unknown[] }).results).toHaveLength(50);

    const similar = await system.get('/api/apps/284882215/similar', key);
    expect((similar.body.data as { resultCount: number }).resultCount).toBeGreaterThan(0);

    const bundle = await system.get('/api/bundles/1482985563', key);
    const bundleData = bundle.body.data as { results: { id: string; attributes: { name: string } }[] };
    expect(bundleData.results[0].id).toBe('1482985563');

    const bundleSearch = await system.get(
      `/api/bundles?term=${encodeURIComponent(bundleData.results[0].attributes.name)}`,
      key,
    );
    expect((bundleSearch.body.data as { results: { id: string }[] }).results.map((r) => r.id)).toContain('1482985563');

    for (const path of ['/api/bundles/1482985563/reviews', '/api/bundles/1482985563/similar']) {
      const answer = await system.get(path, key);
      expect(answer.status).toBe(200);
      expect((answer.body.data as { resultCount: number }).resultCount).toBeGreaterThan(0);
    }

    const developer = await system.get('/api/developers/284882218', key);
    const developerData = developer.body.data as { results: { wrapperType: string; artistId: number }[] };
    expect(developerData.results[0]).toMatchObject({ wrapperType: 'artist', artistId: 284882218 });
    expect(developerData.results.length).toBeGreaterThan(1);

    // Ten paid calls (search, app twice, reviews, similar, bundle, bundle search, two derived, developer).
    expect(await system.balance(key)).toBe('0.970000');
    await system.waitForSpent(created.id, 10n * PRICE);
    expect(await system.ledger(created.id)).toEqual({ toppedUp: 1_000_000n, spent: 30_000n, debits: 10 });
  });

  it('a cached copy is served, marked stale, when the store fails afterwards', async () => {
    const { key } = await system.createKey('1');
    expect((await system.get('/api/apps/284882215/reviews?page=3', key)).headers['x-cache']).toBe('UPSTREAM');
    expect((await system.get('/api/apps/284882215/reviews?page=3', key)).headers['x-cache']).toBe('CACHE');
    system.emulator.setRequestHook(() => ({ response: { status: 503, body: 'maintenance' } }));
    try {
      // Fresh cache entries answer without asking the store at all; a stale one is served only on failure.
      const cached = await system.get('/api/apps/284882215/reviews?page=3', key);
      expect(cached.status).toBe(200);
      expect(['CACHE', 'STALE']).toContain(cached.headers['x-cache']);
    } finally {
      system.emulator.setRequestHook(undefined);
    }
  });

  it('an unknown app is still a paid 200 with no results', async () => {
    const { key } = await system.createKey('1');
    const answer = await system.get('/api/apps/999999999999', key);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ resultCount: 0, results: [] });
    expect(await system.balance(key)).toBe('0.997000');
  });

  it('refuses to charge invalid requests, unknown paths and other methods', async () => {
    const { key } = await system.createKey('1');
    for (const path of [
      '/api/apps',
      '/api/apps/1/reviews?sort=newest',
      '/api/apps?term=x&country=zz',
      '/api/apps/1/unknown',
      '/api',
    ]) {
      const answer = await system.get(path, key);
      expect([400, 404]).toContain(answer.status);
    }
    const post = await fetch(system.baseUrl + '/api/apps/1', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(post.status).toBe(405);
    expect(await system.balanceSoon(key, '1.000000')).toBe('1.000000');
  });

  it('a call that does not pay costs the store nothing; a paid one is read ahead from the cache while its price is held', async () => {
    const path = '/api/apps/284882215/similar?country=fr';
    const upstreamRequestsDuring = async (work: () => Promise<unknown>) => {
      const before = system.emulator.requestCount();
      await work();
      return system.emulator.requestCount() - before;
    };
    const broke = await system.createKey('0.002');
    const revoked = await system.createKey('1');
    await system.revoke(revoked.prefix);
    // Data nobody asked for before: the read-ahead finds nothing cached and must not fetch it.
    expect(
      await upstreamRequestsDuring(async () => {
        expect((await system.get(path, 'ak_' + '2'.repeat(44))).status).toBe(401);
        expect((await system.get(path, revoked.key)).status).toBe(401);
        expect((await system.get(path, broke.key)).status).toBe(402);
      }),
    ).toBe(0);

    const { key } = await system.createKey('1');
    const first = await system.get(path, key);
    expect(first.headers['x-cache']).toBe('UPSTREAM');
    let second: Awaited<ReturnType<System['get']>> | undefined;
    expect(await upstreamRequestsDuring(async () => (second = await system.get(path, key)))).toBe(0);
    expect(second!.headers['x-cache']).toBe('CACHE');
    expect(second!.body).toEqual(first.body);
    expect(await system.balance(key)).toBe('0.994000');
  });

  it('402 topup_required once the balance is below the price; the balance never goes negative', async () => {
    const { key } = await system.createKey('0.005');
    expect((await system.get('/api/apps/284882215', key)).status).toBe(200);
    const refused = await system.get('/api/apps/284882215', key);
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({ status: 402, message: 'topup_required', data: null });
    expect(await system.balance(key)).toBe('0.002000');
  });

  it('401 for unknown keys; revocation takes effect on the very next call on every replica', async () => {
    expect((await system.get('/api/apps/1', 'ak_' + '1'.repeat(44))).body).toEqual({
      status: 401,
      message: 'invalid api key',
      data: null,
    });
    const created = await system.createKey('1');
    for (let i = 0; i < 4; i++) expect((await system.get('/api/apps/284882215', created.key)).status).toBe(200);
    await system.revoke(created.prefix);
    // Several calls, so both payments replicas of the queue group are asked.
    for (let i = 0; i < 6; i++) {
      expect((await system.get('/api/apps/284882215', created.key)).body).toEqual({
        status: 401,
        message: 'api key revoked',
        data: null,
      });
    }
    expect((await system.get('/api/credits/balance', created.key)).status).toBe(401);
  });

  it('an upstream failure is a 502 naming the cause, and nothing is charged', async () => {
    const { key } = await system.createKey('1');
    system.emulator.setRequestHook(() => ({ response: { status: 503, body: 'maintenance' } }));
    try {
      // A search nobody made before: nothing cached to fall back on.
      const answer = await system.get('/api/apps?term=never-searched-before', key);
      expect(answer.status).toBe(502);
      expect(answer.body.data).toBeNull();
      expect(answer.body.message).toMatch(/upstream store answered HTTP 503.*; nothing was charged$/);
    } finally {
      system.emulator.setRequestHook(undefined);
    }
    expect(await system.balanceSoon(key, '1.000000')).toBe('1.000000');
  });

  it('150 concurrent calls on a key worth 100, over two payments replicas: exactly 100 served, 50 topup_required', async () => {
    const created = await system.createKey('0.3');
    const answers = await Promise.all(
      Array.from({ length: 150 }, () => system.get('/api/apps/284882215', created.key)),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(answers.filter((a) => a.status === 402 && a.body.message === 'topup_required')).toHaveLength(50);
    expect(await system.balance(created.key)).toBe('0.000000');
    await system.waitForSpent(created.id, 100n * PRICE);
    expect(await system.ledger(created.id)).toEqual({ toppedUp: 300_000n, spent: 300_000n, debits: 100 });
  });

  it('Redis losing everything in the middle of a run takes no credit away from anyone', async () => {
    const created = await system.createKey('1');
    const redis = await import('ioredis');
    const client = new redis.Redis(system.redis.url);
    let served = 0;
    try {
      const calls = Array.from({ length: 120 }, async (_, i) => {
        if (i === 60) await client.flushall();
        const answer = await system.get('/api/apps/284882215', created.key);
        if (answer.status === 200) served += 1;
        else throw new Error(`call ${i} answered ${answer.status} ${answer.body.message}`);
      });
      await Promise.all(calls);
    } finally {
      client.disconnect();
    }
    expect(served).toBe(120);
    // At least what the user paid for is left; at most the unflushed debits were forgiven.
    const left = BigInt((await system.balance(created.key)).replace('.', ''));
    expect(left).toBeGreaterThanOrEqual(1_000_000n - 120n * PRICE);
    expect(left).toBeLessThanOrEqual(1_000_000n);
    // Every debit that reached Postgres is a call that was served, and none twice.
    await new Promise((r) => setTimeout(r, 1500));
    const ledger = await system.ledger(created.id);
    expect(ledger.spent).toBe(BigInt(ledger.debits) * PRICE);
    expect(ledger.debits).toBeLessThanOrEqual(120);
    expect(left + ledger.spent).toBeGreaterThanOrEqual(1_000_000n);
  });
});
