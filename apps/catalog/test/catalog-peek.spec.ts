import type { CatalogQuery } from '@appcat/contracts';
import { REFERENCE_IDS } from '@appcat/store-emulator';
import { CatalogSystem, catalogClock, requestsDuring } from './support.js';

/**
 * Only the expiry test runs with details that expire within it, on a system of its own: with a 1 s
 * lifetime for every test, a loaded machine let entries expire between a fetch and the peek after it.
 * There the catalog's clock is the test's (catalogClock), which a loaded machine's stalls do not move
 * and the test moves past the lifetime.
 */
const DETAILS_TTL_S = 5;
const EXPIRING = {
  CACHE_TTL_DETAILS_S: String(DETAILS_TTL_S),
  CACHE_TTL_NOT_FOUND_S: String(DETAILS_TTL_S),
  CACHE_STALE_MAX_AGE_S: '600',
};

const app: CatalogQuery = { route: 'apps.get', appId: String(REFERENCE_IDS.app), country: 'us' };
const byBundleId: CatalogQuery = {
  route: 'apps.reviews',
  appId: REFERENCE_IDS.appBundleId,
  page: 2,
  country: 'us',
  sort: 'helpful',
};
const bundleReviews: CatalogQuery = {
  route: 'bundles.reviews',
  bundleId: String(REFERENCE_IDS.bundle),
  page: 1,
  country: 'us',
  sort: 'helpful',
};
const search: CatalogQuery = { route: 'apps.search', term: 'chess', page: 1, country: 'us' };

describe('catalog.peek: the answer from fresh cache entries only', () => {
  let system: CatalogSystem;

  beforeAll(async () => {
    system = await CatalogSystem.start({ replicas: 2 });
  });
  beforeEach(() => system.reset());
  afterAll(() => system?.stop());

  it('answers null on an empty cache without asking the upstream or taking a load lock', async () => {
    for (const query of [app, byBundleId, bundleReviews, search]) {
      expect(await requestsDuring(system.emulator, () => expect(system.peek(query)).resolves.toBeNull())).toBe(0);
    }
    expect(await system.redis.keys('*lock:*')).toEqual([]);
    // Nothing was cached or remembered either: the first fetch still goes upstream.
    expect((await system.fetch(app)).source).toBe('upstream');
  });

  it('answers exactly what catalog.fetch answered, from the cache, for single and composed routes', async () => {
    for (const query of [app, byBundleId, bundleReviews, search]) {
      const fetched = await system.fetch(query);
      let peeked: Awaited<ReturnType<CatalogSystem['peek']>> = null;
      expect(await requestsDuring(system.emulator, async () => (peeked = await system.peek(query)))).toBe(0);
      expect(peeked).toMatchObject({ data: fetched.data, source: 'cache' });
    }
  });

  it('answers null when only part of a composed answer is cached', async () => {
    // The bundle itself is cached by a bundles.get; its members' review pages are not.
    await system.fetch({ route: 'bundles.get', bundleId: String(REFERENCE_IDS.bundle), country: 'us' });
    expect(await requestsDuring(system.emulator, () => expect(system.peek(bundleReviews)).resolves.toBeNull())).toBe(0);
  });
});

describe('catalog.peek once an entry has expired', () => {
  let system: CatalogSystem;

  beforeAll(async () => {
    system = await CatalogSystem.start({ replicas: 2, env: EXPIRING });
    catalogClock.install();
  });
  afterAll(async () => {
    catalogClock.uninstall();
    await system?.stop();
  });

  it('answers null once an entry has expired, even though a stale copy is kept', async () => {
    await system.fetch(app);
    expect(await system.peek(app)).not.toBeNull();
    catalogClock.advance(DETAILS_TTL_S * 1000 + 100);
    expect(await requestsDuring(system.emulator, () => expect(system.peek(app)).resolves.toBeNull())).toBe(0);
  });
});
