import { ErrorCode, SEARCH_PAGE_SIZE } from '@appcat/contracts';
import {
  type EmulatorRequest,
  REFERENCE_IDS,
  startStoreEmulator,
  type StoreEmulator,
  TODAYS_SHAPES,
} from '@appcat/store-emulator';
import { AppleStoreAdapter } from '../src/apple/apple-store-adapter.js';
import { FetchUpstreamHttpClient } from '../src/upstream/upstream-http-client.js';
import { configFor, requestsDuring, wireErrorOf } from './support.js';

/**
 * The adapter against the emulator on each point where today's App Store differs from what the
 * catalog first read (docs/upstream.md, "Fidelity to today's App Store").
 */
describe("Apple adapter: fidelity to today's App Store", () => {
  let emulator: StoreEmulator;
  let seen: URL[];
  const adapterFor = (url = emulator.url, onDrift?: (note: string) => void) => {
    const config = configFor(url);
    return new AppleStoreAdapter(
      config.apple,
      new FetchUpstreamHttpClient({ timeoutMs: 30_000, userAgent: config.apple.userAgent }),
      { onDrift },
    );
  };
  const host = () => new URL(emulator.url).host;
  const asked = (path: string | RegExp) =>
    seen.filter((u) => (typeof path === 'string' ? u.pathname.startsWith(path) : path.test(u.pathname)));

  beforeAll(async () => {
    emulator = await startStoreEmulator({ seed: 13 });
  });
  beforeEach(() => {
    seen = [];
    emulator.setRequestHook((request: EmulatorRequest) => {
      seen.push(new URL(`${request.path}?${request.query.toString()}`, 'http://upstream.invalid'));
      return undefined;
    });
  });
  afterEach(() => {
    emulator.setDrift(TODAYS_SHAPES);
    emulator.clearFaults();
  });
  afterAll(() => emulator.close());

  describe('the web catalogue token', () => {
    it('is read from the module script the store page loads, and sent as the bearer', async () => {
      const adapter = adapterFor();
      expect(
        (await adapter.getBundle({ route: 'bundles.get', bundleId: String(REFERENCE_IDS.bundle), country: 'us' }))
          .resultCount,
      ).toBe(1);
      expect(seen.map((u) => u.pathname)).toEqual([
        '/us/app/facebook/id284882215',
        expect.stringMatching(/^\/assets\/index~[0-9a-f]{10}\.js$/),
        '/v1/catalog/us/app-bundles',
      ]);
    });

    it('is found wherever the page carries it: the old meta configuration, the serialized data', async () => {
      for (const placement of ['meta-tag', 'serialized-data'] as const) {
        emulator.setDrift({ token: placement });
        const similar = await adapterFor().similarApps({
          route: 'apps.similar',
          appId: String(REFERENCE_IDS.app),
          country: 'us',
        });
        expect(similar.resultCount).toBeGreaterThan(0);
        // The page carried it: no module script was read.
        expect(asked('/assets/')).toEqual([]);
        seen = [];
      }
    });

    it('is an unreadable answer naming the host, never cached, when the page no longer leads to it', async () => {
      const adapter = adapterFor();
      emulator.setDrift({ token: 'nowhere' });
      const error = await wireErrorOf(
        adapter.similarApps({ route: 'apps.similar', appId: String(REFERENCE_IDS.app), country: 'us' }),
      );
      expect(error).toEqual({
        code: ErrorCode.UpstreamBadResponse,
        message: `upstream store answered a store page that carries no web catalogue token (${host()})`,
      });
      emulator.addFault({
        match: { endpoint: 'page', pathPattern: '^/us/app/' },
        status: 200,
        body: '<html><head><title>x</title></head><body></body></html>',
        count: 1,
      });
      expect(
        await wireErrorOf(
          adapter.getBundle({ route: 'bundles.get', bundleId: String(REFERENCE_IDS.bundle), country: 'us' }),
        ),
      ).toMatchObject({
        message: `upstream store answered a store page that carries no web catalogue token (${host()})`,
      });
      emulator.setDrift({ token: 'module-script' });
      expect(
        (await adapter.getBundle({ route: 'bundles.get', bundleId: String(REFERENCE_IDS.bundle), country: 'us' }))
          .resultCount,
      ).toBe(1);
    });

    it('is read again before its exp comes, not only after a 401', async () => {
      const shortLived = await startStoreEmulator({ seed: 13, tokenLifetimeSeconds: 30 });
      try {
        const adapter = adapterFor(shortLived.url);
        const query = { route: 'bundles.get', bundleId: String(REFERENCE_IDS.bundle), country: 'us' } as const;
        expect(await requestsDuring(shortLived, () => adapter.getBundle(query))).toBe(3);
        // 30 s of validity is inside the minute of margin kept before exp: page and script again, no 401 first.
        expect(await requestsDuring(shortLived, () => adapter.getBundle(query))).toBe(3);
        const long = adapterFor();
        await long.getBundle(query);
        expect(await requestsDuring(emulator, () => long.getBundle(query))).toBe(1);
      } finally {
        await shortLived.close();
      }
    });
  });

  describe('amp-api parameters', () => {
    it('asks for the iPhone platform plus every other one, and a sparse limit on similar apps', async () => {
      const adapter = adapterFor();
      await adapter.similarApps({
        route: 'apps.similar',
        appId: String(REFERENCE_IDS.app),
        country: 'us',
        lang: 'en-us',
      });
      await adapter.getBundle({ route: 'bundles.get', bundleId: String(REFERENCE_IDS.bundle), country: 'us' });
      await adapter.searchBundles({ route: 'bundles.search', term: 'meta', page: 1, country: 'us' });
      const amp = asked('/v1/');
      expect(amp).toHaveLength(3);
      for (const url of amp) {
        expect(url.searchParams.get('platform')).toBe('iphone');
        expect(url.searchParams.get('additionalPlatforms')).toBe('appletv,ipad,iphone,mac,realityDevice,watch');
      }
      expect(amp[0].searchParams.get('sparseLimit[apps:customers-also-bought-apps]')).toBe('40');
      expect(amp[1].searchParams.has('sparseLimit[apps:customers-also-bought-apps]')).toBe(false);
      expect(amp[2].searchParams.get('types')).toBe('apps,app-bundles');
    });
  });

  describe('the reviews feed', () => {
    const facebook = {
      route: 'apps.reviews',
      appId: String(REFERENCE_IDS.app),
      page: 1,
      country: 'us',
      sort: 'recent',
    } as const;

    it('is read in its /json form', async () => {
      expect((await adapterFor().appReviews(facebook)).resultCount).toBe(50);
      expect(asked(/\/rss\/customerreviews\//).map((u) => u.pathname)).toEqual([
        `/us/rss/customerreviews/page=1/id=${REFERENCE_IDS.app}/sortby=mostRecent/json`,
      ]);
    });

    it('skips the app itself when it comes as the first entry, and says so', async () => {
      const notes: string[] = [];
      const adapter = adapterFor(emulator.url, (note) => notes.push(note));
      const today = (await adapter.appReviews(facebook)).results;
      expect(notes).toEqual([]);
      emulator.setDrift({ reviewsFirstEntry: 'app' });
      const older = (await adapter.appReviews(facebook)).results;
      expect(older.map((r) => r.id)).toEqual(today.map((r) => r.id));
      expect(notes).toEqual(['the reviews feed lists the app itself as its first entry (skipped)']);
      const single = await adapter.appReviews({ ...facebook, appId: String(REFERENCE_IDS.singleReviewApp) });
      expect(single.resultCount).toBe(1);
      expect(single.results[0].id).toMatch(/^\d+$/);
    });

    it('reads a single review sent as an object, and tolerates stray entries', async () => {
      const single = await adapterFor().appReviews({ ...facebook, appId: String(REFERENCE_IDS.singleReviewApp) });
      expect(single.resultCount).toBe(1);
      const real = JSON.parse(
        await (
          await fetch(`${emulator.url}/us/rss/customerreviews/page=1/id=${REFERENCE_IDS.app}/sortby=mostRecent/json`)
        ).text(),
      ) as {
        feed: { entry: unknown[] };
      };
      const body = JSON.stringify({
        feed: { ...real.feed, entry: [real.feed.entry[0], 'stray', { script: {} }, real.feed.entry[1]] },
      });
      emulator.addFault({
        match: { endpoint: 'reviews' },
        status: 200,
        body,
        headers: { 'content-type': 'application/json' },
        count: 1,
      });
      const notes: string[] = [];
      const stray = await adapterFor(emulator.url, (note) => notes.push(note)).appReviews(facebook);
      expect(stray.resultCount).toBe(2);
      expect(notes).toEqual(['the reviews feed holds 2 entries that are not reviews (skipped)']);
    });

    it('is unreadable, not empty, when no entry can be read or the feed is missing', async () => {
      for (const body of [
        '{"feed":{"entry":[{"id":"x"},{"id":"y"}]}}',
        '{"reviews":[]}',
        '<?xml version="1.0"?><feed/>',
      ]) {
        emulator.addFault({ match: { endpoint: 'reviews' }, status: 200, body, count: 1 });
        expect(await wireErrorOf(adapterFor().appReviews(facebook))).toMatchObject({
          code: ErrorCode.UpstreamBadResponse,
          message: expect.stringContaining(`(${host()})`),
        });
      }
    });

    it('has pages 1 to 10 only: nothing else is asked', async () => {
      const adapter = adapterFor();
      expect(
        await requestsDuring(emulator, async () =>
          expect(await adapter.appReviews({ ...facebook, page: 11 })).toEqual({ resultCount: 0, results: [] }),
        ),
      ).toBe(0);
      expect((await adapter.appReviews({ ...facebook, page: 10 })).resultCount).toBe(50);
    });
  });

  describe('search results', () => {
    const search = { route: 'bundles.search', term: 'meta', page: 1, country: 'us' } as const;

    it('reads the group of its type; a search that finds nothing is an empty list', async () => {
      const adapter = adapterFor();
      const found = await adapter.searchBundles(search);
      expect(found.resultCount).toBeGreaterThan(0);
      expect(found.resultCount).toBeLessThanOrEqual(SEARCH_PAGE_SIZE);
      expect((found.results as { type: string }[]).every((r) => r.type === 'app-bundles')).toBe(true);
      expect(await adapter.searchBundles({ ...search, term: 'zzzqqqxxx' })).toEqual({ resultCount: 0, results: [] });
    });

    it('never turns an unknown grouping into an empty list', async () => {
      emulator.setDrift({ searchGrouping: 'unknown' });
      expect(await wireErrorOf(adapterFor().searchBundles(search))).toEqual({
        code: ErrorCode.UpstreamBadResponse,
        message: `upstream store answered search results grouped by an unknown type (top) (${host()})`,
      });
      emulator.addFault({
        match: { endpoint: 'amp-search' },
        status: 200,
        body: '{"results":{"app-bundles":{"href":"/x"}}}',
        count: 1,
      });
      expect(await wireErrorOf(adapterFor().searchBundles(search))).toMatchObject({
        message: `upstream store answered search results whose app-bundles group has no data (${host()})`,
      });
    });
  });

  describe('lookups', () => {
    it('sends a bundle identifier as given, and finds the app whatever its casing', async () => {
      const adapter = adapterFor();
      const exact = await adapter.getApp({ route: 'apps.get', appId: 'com.facebook.Facebook', country: 'us' });
      const lower = await adapter.getApp({ route: 'apps.get', appId: 'com.facebook.facebook', country: 'us' });
      expect(exact.results).toEqual(lower.results);
      expect(exact.resultCount).toBe(1);
      expect(asked('/lookup').map((u) => u.searchParams.get('bundleId'))).toEqual([
        'com.facebook.Facebook',
        'com.facebook.facebook',
      ]);
    });

    it('names the US storefront for a developer, the route having none', async () => {
      await adapterFor().getDeveloper({ route: 'developers.get', developerId: String(REFERENCE_IDS.developer) });
      const [lookup] = asked('/lookup');
      expect(Object.fromEntries(lookup.searchParams)).toEqual({
        id: String(REFERENCE_IDS.developer),
        country: 'us',
        entity: 'software',
        limit: '200',
      });
    });
  });
});
