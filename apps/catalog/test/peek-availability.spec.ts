/*
 * catalog.peek on a miss says whether the upstream the missing resource needs is unavailable now
 * (breaker open, or rate budget spent) when no copy is held, fresh or stale; the gateway refuses such
 * a call before charging. Real Redis breaker and limiter state, the emulator failing.
 */
import { type CatalogQuery, ErrorCode } from '@appcat/contracts';
import { CatalogMetrics } from '@appcat/ops';
import { REFERENCE_IDS } from '@appcat/store-emulator';
import { ALL_SOURCES, CatalogSystem, catalogClock, requestsDuring } from './support.js';

const app: CatalogQuery = { route: 'apps.get', appId: String(REFERENCE_IDS.app), country: 'us' };
const other: CatalogQuery = { route: 'apps.get', appId: String(REFERENCE_IDS.app), country: 'gb' };
const third: CatalogQuery = { route: 'apps.get', appId: String(REFERENCE_IDS.app), country: 'fr' };
const bundle: CatalogQuery = { route: 'bundles.get', bundleId: String(REFERENCE_IDS.bundle), country: 'us' };

describe('catalog.peek: availability on a miss', () => {
  let system: CatalogSystem;

  beforeAll(async () => {
    system = await CatalogSystem.start({
      env: {
        BREAKER_FAILURE_THRESHOLD: '1',
        BREAKER_OPEN_MS: '60000',
        CACHE_TTL_DETAILS_S: '1',
        // iTunes: two calls, then one a minute, no waiting for a token.
        ITUNES_RATE_PER_MIN: '1',
        ITUNES_BURST: '2',
        UPSTREAM_RATE_LIMIT_MAX_WAIT_MS: '0',
      },
    });
  });
  beforeEach(() => system.reset());
  afterAll(() => system?.stop());

  it('a miss with every upstream available is null, and asks the upstream nothing', async () => {
    expect(await requestsDuring(system.emulator, async () => expect(await system.peekReply(app)).toBeNull())).toBe(0);
  });

  it("an open breaker with no copy held: unavailable, with the breaker's code, cause and remaining time; only for the host it guards", async () => {
    system.emulator.addFault({ status: 503 });
    const asked = performance.now();
    await expect(system.fetch(app)).rejects.toMatchObject({ code: ErrorCode.UpstreamHttpError });
    const reply = await system.peekReply(other);
    const elapsedMs = performance.now() - asked;
    expect(reply).toEqual({
      unavailable: {
        code: ErrorCode.UpstreamHttpError,
        message: expect.stringMatching(/^upstream store is failing \(HTTP 503, itunes\); retry after \d+ s$/),
        retryAfterSeconds: expect.any(Number),
      },
    });
    // What is left of the minute it opened for: the time since it opened at most, however slow the machine.
    const { retryAfterSeconds } = (reply as { unavailable: { retryAfterSeconds: number } }).unavailable;
    expect(retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(retryAfterSeconds).toBeGreaterThanOrEqual(Math.floor((60_000 - elapsedMs) / 1000));
    // Bundles come from the web catalogue, whose breaker is closed.
    expect(await system.peekReply(bundle)).toBeNull();
    // The breaker gauge, read from Redis when scraped.
    const gauge = system.replicas[0].get(CatalogMetrics).registry.getSingleMetric('appcat_upstream_breaker_open')!;
    const open = Object.fromEntries((await gauge.get()).values.map((value) => [value.labels.host, value.value]));
    expect(open).toMatchObject({ itunes: 1, 'apple-web': 0, 'apple-amp': 0 });
    expect(Object.values(open).filter((value) => value === 1)).toEqual([1]);
  });

  it('an open breaker with a stale copy held: null (the fetch serves the copy, and is charged)', async () => {
    // The catalog's clock is the test's here: it moves past the 1 s lifetime, a loaded machine does not.
    // (Only here: the breaker's end, on Redis's clock, is compared with the catalog's in the others.)
    catalogClock.install();
    try {
      await system.fetch(app);
      catalogClock.advance(1100);
      system.emulator.addFault({ status: 503 });
      await expect(system.fetch(other)).rejects.toMatchObject({ code: ErrorCode.UpstreamHttpError });
      expect(await system.peekReply(app)).toBeNull();
      expect((await system.fetch(app)).source).toBe('stale');
    } finally {
      catalogClock.uninstall();
    }
  });

  it('a spent rate budget with no copy held: unavailable as throttled, until a token is due', async () => {
    await system.fetch(app);
    await system.fetch(other);
    expect(await system.peekReply(third)).toEqual({
      unavailable: {
        code: ErrorCode.UpstreamThrottled,
        message: expect.stringMatching(
          /^upstream store rate limit reached: 1 calls a minute to itunes; retry after \d+ s$/,
        ),
        retryAfterSeconds: expect.any(Number),
      },
    });
  });

  describe('a route read from several hosts', () => {
    let chained: CatalogSystem;
    beforeAll(async () => {
      chained = await CatalogSystem.start({
        env: { ...ALL_SOURCES, BREAKER_FAILURE_THRESHOLD: '1', BREAKER_OPEN_MS: '60000' },
      });
    });
    afterAll(() => chained?.stop());

    it('null while any host it can be read from is open; unavailable once all are, as the first to close says it', async () => {
      // apps.get reads iTunes Lookup first, then the same-origin catalogue (apps.apple.com).
      chained.emulator.addFault({ status: 503, match: { path: '/lookup' } });
      expect((await chained.fetch(app)).upstreamSource).toBe('catalogue');
      // iTunes' breaker is open now; the catalogue could still answer a miss.
      expect(await chained.peekReply(other)).toBeNull();
      chained.emulator.addFault({ status: 503 });
      await expect(chained.fetch(other)).rejects.toMatchObject({ code: ErrorCode.UpstreamHttpError });
      expect(await chained.peekReply(third)).toEqual({
        unavailable: {
          code: ErrorCode.UpstreamHttpError,
          // iTunes' breaker opened first, so it closes first.
          message: expect.stringMatching(/^upstream store is failing \(HTTP 503, itunes\); retry after \d+ s$/),
          retryAfterSeconds: expect.any(Number),
        },
      });
    });
  });
});
