import { type CatalogQuery, ErrorCode } from '@appcat/contracts';
import { CatalogMetrics } from '@appcat/ops';
import { type DriftSettings, REFERENCE_IDS, TODAYS_SHAPES } from '@appcat/store-emulator';
import { AppleStoreAdapter } from '../src/apple/apple-store-adapter.js';
import { FetchUpstreamHttpClient } from '../src/upstream/upstream-http-client.js';
import { ALL_SOURCES, CatalogSystem, configFor, listOf, sleep, until } from './support.js';

const app = String(REFERENCE_IDS.app);
const bundle = String(REFERENCE_IDS.bundle);
const NINE_ROUTES: CatalogQuery[] = [
  { route: 'apps.search', term: 'facebook', page: 1, country: 'us' },
  { route: 'apps.get', appId: app, country: 'us' },
  { route: 'apps.reviews', appId: app, page: 1, sort: 'recent', country: 'us' },
  { route: 'apps.similar', appId: app, country: 'us' },
  { route: 'bundles.search', term: 'meta', page: 1, country: 'us' },
  { route: 'bundles.get', bundleId: bundle, country: 'us' },
  { route: 'bundles.reviews', bundleId: bundle, page: 1, sort: 'recent', country: 'us' },
  { route: 'bundles.similar', bundleId: bundle, country: 'us' },
  { route: 'developers.get', developerId: String(REFERENCE_IDS.developer) },
];

/** The behaviours of 2026 the emulator switches on, one at a time (docs/upstream.md). */
const MODES: [string, Partial<DriftSettings>][] = [
  ['the token only at run time', { token: 'nowhere' }],
  ['the token in the serialized data only', { token: 'serialized-data' }],
  ['the feed empty always', { reviewsFeed: 'empty' }],
  ['the feed empty after a burst', { reviewsFeed: 'empty-after-burst', feedBurst: 1 }],
  ['the feed empty on one URL form', { reviewsFeed: 'empty-one-form' }],
  ['the same-origin catalogue serving what is proven only', { sameOriginScope: 'proven' }],
];

describe('Apple sources: a chain per route, plausibility first', () => {
  let system: CatalogSystem;
  const cached = async (key: string) => system.redis.get(`${system.config.redis.keyPrefix}c:{${key}}`);

  beforeAll(async () => {
    system = await CatalogSystem.start({ replicas: 1, env: ALL_SOURCES });
  });
  afterEach(async () => {
    system.emulator.setDrift({ ...TODAYS_SHAPES });
    await system.reset();
  });
  afterAll(() => system?.stop());

  it.each(MODES)('answers all nine routes with records with %s', async (_, drift) => {
    system.emulator.setDrift(drift);
    for (const query of NINE_ROUTES) {
      const reply = await system.fetch(query);
      expect({ route: query.route, records: listOf(reply).resultCount > 0 }).toEqual({
        route: query.route,
        records: true,
      });
    }
  });

  it('never lets the suspect-empty feed reach the caller or the cache: the next source answers', async () => {
    const { upstreamSource } = system.replicas[0].get(CatalogMetrics);
    const counts = async () => {
      const values = (await upstreamSource.get()).values;
      const count = (source: string, outcome: string) =>
        values.find(
          (v) =>
            v.labels.route === '/api/apps/{appId}/reviews' &&
            v.labels.source === source &&
            v.labels.outcome === outcome,
        )?.value ?? 0;
      return [count('feed', 'implausible'), count('feed-id-first', 'implausible'), count('catalogue', 'ok')];
    };
    const before = await counts();
    system.emulator.setDrift({ reviewsFeed: 'empty' });
    const reply = await system.fetch(NINE_ROUTES[2]);
    expect(listOf(reply).resultCount).toBe(50);
    const stats = system.emulator.stats().byEndpoint;
    // Both feed forms were asked and disbelieved; the same-origin catalogue gave the page (3 calls of 20).
    expect(stats.reviews).toBe(2);
    expect(stats['same-origin']).toBe(3);
    const entry = await cached(`apple:reviews:us:${app}:recent:1`);
    // The entry keeps the source that produced it beside its fetch time.
    expect(JSON.parse(entry!.replace(/^\d+\|0\|catalogue\|/, ''))).toHaveLength(50);
    // What each source did is counted, so operators see the feed dying before users do.
    expect((await counts()).map((n, i) => n - before[i])).toEqual([1, 1, 1]);
  });

  it('says which source produced each answer, on a fetch and on later cache hits alike', async () => {
    system.emulator.setDrift({ reviewsFeed: 'empty' });
    const fetched = await system.fetch(NINE_ROUTES[2]);
    expect(fetched).toMatchObject({ source: 'upstream', upstreamSource: 'catalogue' });
    expect(await system.fetch(NINE_ROUTES[2])).toMatchObject({ source: 'cache', upstreamSource: 'catalogue' });
    expect(await system.peek(NINE_ROUTES[2])).toMatchObject({ source: 'cache', upstreamSource: 'catalogue' });
    // An app's record primed by a search is iTunes's too; a reply built of several resources names each source once.
    expect(await system.fetch(NINE_ROUTES[0])).toMatchObject({ upstreamSource: 'itunes' });
    expect(await system.peek(NINE_ROUTES[1])).toMatchObject({ source: 'cache', upstreamSource: 'itunes' });
    expect((await system.fetch(NINE_ROUTES[6])).upstreamSource).toBe('amp-api, catalogue');
  });

  it('believes an empty feed for an app without ratings, and past the last page', async () => {
    const unreviewed = String(REFERENCE_IDS.unreviewedApp);
    const empty = await system.fetch({
      route: 'apps.reviews',
      appId: unreviewed,
      page: 1,
      sort: 'recent',
      country: 'us',
    });
    expect(listOf(empty).resultCount).toBe(0);
    const chess = String(REFERENCE_IDS.chessApp);
    const pastTheEnd = await system.fetch({
      route: 'apps.reviews',
      appId: chess,
      page: 5,
      sort: 'recent',
      country: 'us',
    });
    expect(listOf(pastTheEnd).resultCount).toBe(0);
    expect(system.emulator.stats().byEndpoint['same-origin']).toBe(0);
  });

  it('fails with a 502-class error naming every source tried when none is believable, and caches nothing', async () => {
    const only = await CatalogSystem.start({
      replicas: 1,
      env: { ...ALL_SOURCES, APPLE_SOURCES_APPS_REVIEWS: 'feed,feed-id-first' },
    });
    try {
      only.emulator.setDrift({ reviewsFeed: 'empty' });
      await expect(only.fetch(NINE_ROUTES[2])).rejects.toEqual({
        code: ErrorCode.UpstreamBadResponse,
        message: expect.stringMatching(
          /^no source could answer apps\.reviews \(feed: no reviews while Lookup reports \d+ ratings in us; feed-id-first: no reviews while Lookup reports \d+ ratings in us\)$/,
        ),
      });
      expect(await only.redis.get(`${only.config.redis.keyPrefix}c:{apple:reviews:us:${app}:recent:1}`)).toBeNull();
    } finally {
      await only.stop();
    }
  });

  it('never serves the suspect answer stale over a good copy: the refresh fails, the good copy stays', async () => {
    const short = await CatalogSystem.start({
      replicas: 1,
      env: { ...ALL_SOURCES, APPLE_SOURCES_APPS_REVIEWS: 'feed', CACHE_TTL_RECENT_REVIEWS_S: '1' },
    });
    try {
      expect(listOf(await short.fetch(NINE_ROUTES[2])).resultCount).toBe(50);
      short.emulator.setDrift({ reviewsFeed: 'empty' });
      await sleep(1100);
      const stale = await short.fetch(NINE_ROUTES[2]);
      expect([stale.source, listOf(stale).resultCount]).toEqual(['stale', 50]);
      // The drainer refreshes it (every 500 ms) from the empty feed, disbelieves it, and keeps the good copy.
      await until(() => short.emulator.stats().byEndpoint.reviews >= 2);
      await sleep(200);
      const again = await short.fetch(NINE_ROUTES[2]);
      expect([again.source, listOf(again).resultCount]).toEqual(['stale', 50]);
    } finally {
      await short.stop();
    }
  });

  it("puts a resource's refreshes on the host of the route's first source, and its availability on every host its sources reach", () => {
    const http = new FetchUpstreamHttpClient({ timeoutMs: 1000, userAgent: 'test' });
    const upstreamsOf = (env: Record<string, string>, key: string) =>
      new AppleStoreAdapter(configFor(system.emulator.url, env).apple, http).upstreamsOf(key);
    const reviews = `apple:reviews:us:${app}:recent:1`;
    expect(upstreamsOf(ALL_SOURCES, reviews)).toEqual(['itunes', 'apple-catalogue', 'apple-web']);
    expect(upstreamsOf({ ...ALL_SOURCES, APPLE_SOURCES_APPS_REVIEWS: 'catalogue,feed' }, reviews)).toEqual([
      'apple-catalogue',
      'itunes',
    ]);
    expect(upstreamsOf({ ...ALL_SOURCES, APPLE_SOURCES_BUNDLES_GET: 'page' }, `apple:bundle:us:-:${bundle}`)).toEqual([
      'apple-web',
    ]);
  });
});
