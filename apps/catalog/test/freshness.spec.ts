import { type CatalogQuery, ErrorCode } from '@appcat/contracts';
import { REFERENCE_IDS } from '@appcat/store-emulator';
import { CatalogSystem, catalogClock, listOf, sleep, until } from './support.js';

/** Wide enough that a loaded machine does not time out a healthy upstream call (300 ms did). */
const UPSTREAM_TIMEOUT_MS = 3_000;

/**
 * Short TTLs, so expiry is seen within a test; long ones for what must not expire. The catalog's clock
 * is the test's (catalogClock): it moves past a lifetime at once, and a loaded machine's stalls do not
 * age entries meanwhile. "Not found" is kept by Redis itself (PX) for its lifetime, on the real clock:
 * a minute, so it outlives any step, and the test moves the catalog's clock past it.
 */
const NOT_FOUND_TTL_S = 60;
const ENV = {
  CACHE_TTL_DETAILS_S: '1',
  CACHE_TTL_NOT_FOUND_S: String(NOT_FOUND_TTL_S),
  CACHE_TTL_RECENT_REVIEWS_S: '1',
  CACHE_TTL_REVIEWS_S: '600',
  CACHE_STALE_MAX_AGE_S: '600',
  CACHE_FAILURE_TTL_MS: '300',
  BREAKER_FAILURE_THRESHOLD: '100',
  UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
  CACHE_REFRESH_INTERVAL_MS: '50',
};

const app = (country: string): CatalogQuery => ({ route: 'apps.get', appId: String(REFERENCE_IDS.app), country });

describe('cache freshness, expiry and stale answers', () => {
  let system: CatalogSystem;

  beforeAll(async () => {
    system = await CatalogSystem.start({ replicas: 2, env: ENV });
    catalogClock.install();
  });
  beforeEach(() => system.reset());
  afterAll(async () => {
    catalogClock.uninstall();
    await system?.stop();
  });

  // Stale-while-revalidate: an expired entry is answered stale at once and refreshed once in the
  // background (the refresh queue), no longer loaded while the caller waits.
  it('refreshes an entry once it has expired, answering stale until the refresh lands', async () => {
    expect((await system.fetch(app('us'))).source).toBe('upstream');
    expect((await system.fetch(app('us'))).source).toBe('cache');
    catalogClock.advance(1100);
    expect((await system.fetch(app('us'))).source).toBe('stale');
    await until(async () => (await system.fetch(app('us'))).source === 'cache');
    expect(system.emulator.stats().byEndpoint.lookup).toBe(2);
  });

  it('gives each kind its own TTL: page 1 of recent reviews expires, other pages do not', async () => {
    const page = (p: number): CatalogQuery => ({
      route: 'apps.reviews',
      appId: String(REFERENCE_IDS.app),
      page: p,
      country: 'us',
      sort: 'recent',
    });
    await system.fetch(page(1));
    const secondAsked = Date.now();
    await system.fetch(page(2));
    catalogClock.advance(1100);
    expect((await system.fetch(page(1))).source).toBe('stale');
    const second = await system.fetch(page(2));
    expect(second.source).toBe('cache');
    // Its age: at least the second moved past, at most the time since it was asked for, on the catalog's clock.
    expect(second.ageSeconds).toBeGreaterThanOrEqual(1);
    expect(second.ageSeconds).toBeLessThanOrEqual(Math.ceil((Date.now() - secondAsked) / 1000));
    await until(async () => (await system.fetch(page(1))).source === 'cache');
    expect(system.emulator.stats().byEndpoint.reviews).toBe(3);
  });

  it('remembers "not found" for its own TTL', async () => {
    const unknown: CatalogQuery = { route: 'apps.get', appId: '999999999', country: 'us' };
    expect(await system.fetch(unknown)).toMatchObject({ data: { resultCount: 0, results: [] }, source: 'upstream' });
    expect(await system.fetch(unknown)).toMatchObject({ data: { resultCount: 0, results: [] }, source: 'cache' });
    catalogClock.advance(NOT_FOUND_TTL_S * 1000 + 100);
    expect((await system.fetch(unknown)).source).toBe('upstream');
    expect(system.emulator.stats().byEndpoint.lookup).toBe(2);
  });

  it('serves stale data at once while the refresh times out, reads an unreadable answer or is throttled', async () => {
    await system.fetch(app('de'));
    catalogClock.advance(1100);
    for (const fault of [{ delayMs: 60_000 }, { malformed: true }, { status: 403 }]) {
      system.emulator.clearFaults();
      system.emulator.addFault({ match: { endpoint: 'lookup' }, ...fault });
      const lookups = system.emulator.stats().byEndpoint.lookup;
      expect([fault, (await system.fetch(app('de'))).source]).toEqual([fault, 'stale']);
      // A refresh meets the fault and the entry stays stale. Asked again meanwhile: a refresh that found
      // the previous fault's call still in flight (its lock held) was dropped, and the next request
      // queues it again, as callers do.
      await until(async () => {
        expect([fault, (await system.fetch(app('de'))).source]).toEqual([fault, 'stale']);
        return system.emulator.stats().byEndpoint.lookup > lookups;
      });
      expect([fault, (await system.fetch(app('de'))).source]).toEqual([fault, 'stale']);
      // Let the remembered failure (and a 403's open breaker) expire, so the next fault is met by a real call.
      await sleep(350);
    }
  });

  it('a cold failure is a typed upstream error naming the cause (the gateway answers 502)', async () => {
    system.emulator.addFault({ match: { endpoint: 'lookup' }, status: 503 });
    await expect(system.fetch(app('jp'))).rejects.toEqual({
      code: ErrorCode.UpstreamHttpError,
      message: `upstream store answered HTTP 503 (${new URL(system.emulator.url).host})`,
    });
  });

  it('a stale answer used for a derived route marks the whole reply stale', async () => {
    const query: CatalogQuery = {
      route: 'bundles.reviews',
      bundleId: String(REFERENCE_IDS.bundle),
      page: 1,
      country: 'us',
      sort: 'recent',
    };
    const fresh = await system.fetch(query);
    catalogClock.advance(1100);
    // The bundle (12 h kind, 1 s here) and page 1 of recent reviews have expired; the feed now fails.
    system.emulator.addFault({ match: { endpoint: 'reviews' }, status: 500 });
    const reply = await system.fetch(query);
    expect(reply).toMatchObject({ source: 'stale', ageSeconds: expect.any(Number) });
    expect(listOf(reply).results).toEqual(listOf(fresh).results);
  });
});

describe('a failed refresh, remembered', () => {
  // Remembered for 5 s, far longer than the steps that must fall within it take on a loaded machine
  // (300 ms, shared with the tests above, was not).
  let system: CatalogSystem;

  beforeAll(async () => {
    system = await CatalogSystem.start({ replicas: 2, env: { ...ENV, CACHE_FAILURE_TTL_MS: '5000' } });
    catalogClock.install();
  });
  afterAll(async () => {
    catalogClock.uninstall();
    await system?.stop();
  });

  it('serves an expired entry, marked stale with its age, while its refresh fails; and does not ask again at once', async () => {
    const fresh = await system.fetch(app('gb'));
    catalogClock.advance(1100);
    system.emulator.addFault({ match: { endpoint: 'lookup' }, status: 503 });
    const stale = await system.fetch(app('gb'));
    expect(stale).toEqual({
      data: fresh.data,
      source: 'stale',
      ageSeconds: expect.any(Number),
      upstreamSource: 'itunes',
    });
    expect(stale.ageSeconds).toBeGreaterThanOrEqual(1);
    await until(async () => system.emulator.stats().byEndpoint.lookup === 2);
    // The failure is remembered for CACHE_FAILURE_TTL_MS: the refresh queued again meanwhile does not call.
    expect((await system.fetch(app('gb'))).source).toBe('stale');
    await sleep(150);
    expect(system.emulator.stats().byEndpoint.lookup).toBe(2);
    system.emulator.clearFaults();
    await until(async () => (await system.fetch(app('gb'))).source === 'cache');
  });
});
