import type { CatalogQuery, CatalogReply } from '@appcat/contracts';
import { NearCache } from './near-cache.js';

/** Pure logic on a clock of the test's own. */
describe('NearCache', () => {
  let now = 1_000_000;
  const clock = () => now;
  const query: CatalogQuery = { route: 'apps.get', appId: '284882215', country: 'us' };
  const sameQueryOtherOrder = { country: 'us', appId: '284882215', route: 'apps.get' } as CatalogQuery;
  const fresh = (overrides: Partial<CatalogReply> = {}): CatalogReply => ({
    dataJson: '{"a":1}',
    source: 'cache',
    ageSeconds: 2,
    ageMs: 2_500,
    freshForMs: 60_000,
    ...overrides,
  });

  beforeEach(() => {
    now = 1_000_000;
  });

  it('serves a remembered answer as a cache hit, keyed by the request identity, with the age from its own fetch time', () => {
    const cache = new NearCache(1_000, 1 << 20, clock);
    cache.remember(query, fresh(), now);
    now += 600;
    // Produced 2.5 s before the request was sent, 0.6 s ago: 3.1 s old.
    expect(cache.get(sameQueryOtherOrder)).toEqual({ dataJson: '{"a":1}', source: 'cache', ageSeconds: 3 });
    expect(cache.get({ ...query, country: 'gb' })).toBeUndefined();
  });

  it("keeps the store's source that produced an answer and reports it on a hit", () => {
    const cache = new NearCache(1_000, 1 << 20, clock);
    cache.remember(query, fresh({ upstreamSource: 'itunes' }), now);
    expect(cache.get(query)).toMatchObject({ source: 'cache', upstreamSource: 'itunes' });
  });

  it('takes the time the request was sent as the reply time: the age is never below the truth', () => {
    const cache = new NearCache(1_000, 1 << 20, clock);
    const sentAt = now;
    now += 300; // the reply took 0.3 s to come back
    cache.remember(query, fresh({ source: 'upstream', ageSeconds: undefined, ageMs: 0, freshForMs: 60_000 }), sentAt);
    now = sentAt + 1_000 - 1;
    expect(cache.get(query)).toMatchObject({ source: 'cache', ageSeconds: 0 });
    now = sentAt + 1_000;
    expect(cache.get(query)).toBeUndefined();
  });

  it('keeps an answer no longer than its own time', () => {
    const cache = new NearCache(1_000, 1 << 20, clock);
    cache.remember(query, fresh(), now);
    now += 999;
    expect(cache.get(query)).toBeDefined();
    now += 1;
    expect(cache.get(query)).toBeUndefined();
  });

  it('never keeps an answer past the catalog’s own freshness', () => {
    const cache = new NearCache(1_000, 1 << 20, clock);
    const sentAt = now;
    cache.remember(query, fresh({ freshForMs: 200 }), sentAt);
    now = sentAt + 199;
    expect(cache.get(query)).toBeDefined();
    now = sentAt + 200;
    expect(cache.get(query)).toBeUndefined();
  });

  it('never keeps a stale answer, nor one the catalog does not count fresh', () => {
    const cache = new NearCache(1_000, 1 << 20, clock);
    cache.remember(query, fresh({ source: 'stale', freshForMs: undefined, ageMs: undefined, ageSeconds: 900 }), now);
    expect(cache.get(query)).toBeUndefined();
    cache.remember(query, fresh({ source: 'stale' }), now);
    expect(cache.get(query)).toBeUndefined();
    cache.remember(query, fresh({ freshForMs: undefined }), now);
    expect(cache.get(query)).toBeUndefined();
    cache.remember(query, fresh({ freshForMs: 0 }), now);
    expect(cache.get(query)).toBeUndefined();
  });

  it('is off with a time of 0', () => {
    const cache = new NearCache(0, 1 << 20, clock);
    expect(cache.enabled).toBe(false);
    cache.remember(query, fresh(), now);
    expect(cache.get(query)).toBeUndefined();
  });

  it('stays within its byte bound, dropping the oldest entries first', () => {
    const data = 'x'.repeat(1_000);
    const cache = new NearCache(1_000, 5_000, clock);
    const queries = ['1', '2', '3'].map((appId): CatalogQuery => ({ route: 'apps.get', appId, country: 'us' }));
    for (const q of queries) cache.remember(q, fresh({ dataJson: data }), now);
    // Each entry is about 2 kB (UTF-16) plus overhead: only the last two fit.
    expect(queries.map((q) => cache.get(q) !== undefined)).toEqual([false, true, true]);
    cache.remember(query, fresh({ dataJson: 'y'.repeat(10_000) }), now);
    expect(cache.get(query)).toBeUndefined();
  });

  it('drops expired entries as new ones arrive, so it holds about what was served in its time', () => {
    const data = 'x'.repeat(1_000);
    const cache = new NearCache(1_000, 1_000_000, clock);
    const queryFor = (appId: string): CatalogQuery => ({ route: 'apps.get', appId, country: 'us' });
    for (let i = 0; i < 100; i++) cache.remember(queryFor(`${i}`), fresh({ dataJson: data }), now);
    const hundred = cache.heldBytes;
    expect(hundred).toBeGreaterThan(100 * 2_000);
    now += 1_000;
    cache.remember(queryFor('new'), fresh({ dataJson: data }), now);
    // Only the new entry is left (keys differ in length by a few characters).
    expect(cache.heldBytes).toBeGreaterThan(2_000);
    expect(cache.heldBytes).toBeLessThan((2 * hundred) / 100);
    expect(cache.get(queryFor('new'))).toBeDefined();
  });
});
