import { ErrorCode, SEARCH_PAGE_SIZE } from '@appcat/contracts';
import { REFERENCE_IDS, startStoreEmulator, type StoreEmulator } from '@appcat/store-emulator';
import { AppleStoreAdapter } from '../src/apple/apple-store-adapter.js';
import type { Review } from '../src/store/store-adapter.js';
import { FetchUpstreamHttpClient } from '../src/upstream/upstream-http-client.js';
import { configFor, requestsDuring, wireErrorOf } from './support.js';

type Json = Record<string, unknown>;
type Resource = { id: string; type: string; attributes?: Json; relationships?: Record<string, { data: Resource[] }> };

const REVIEW_FIELDS = [
  'id',
  'appId',
  'userName',
  'userUrl',
  'version',
  'score',
  'title',
  'text',
  'url',
  'updated',
  'voteSum',
  'voteCount',
];
const newestFirst = (reviews: Review[]) =>
  reviews.map((r) => Date.parse(r.updated)).every((t, i, all) => i === 0 || all[i - 1] >= t);
const byVotes = (reviews: Review[]) => reviews.every((r, i) => i === 0 || reviews[i - 1].voteSum >= r.voteSum);

describe('Apple store adapter against the store emulator', () => {
  let emulator: StoreEmulator;
  let adapter: AppleStoreAdapter;

  beforeAll(async () => {
    emulator = await startStoreEmulator({ seed: 11 });
    const config = configFor(emulator.url);
    adapter = new AppleStoreAdapter(
      config.apple,
      new FetchUpstreamHttpClient({ timeoutMs: 30_000, userAgent: config.apple.userAgent }),
    );
  });
  afterAll(() => emulator.close());

  describe('apps.search', () => {
    it('fetches up to 200 results once and returns the requested page of 20', async () => {
      const all = (await (await fetch(`${emulator.url}/search?term=chess&country=us&limit=200`)).json()) as {
        results: Json[];
      };
      let page2: Json[] = [];
      const requests = await requestsDuring(emulator, async () => {
        page2 = (await adapter.searchApps({ route: 'apps.search', term: 'chess', page: 2, country: 'us' }))
          .results as Json[];
      });
      expect(requests).toBe(1);
      expect(page2).toHaveLength(SEARCH_PAGE_SIZE);
      expect(page2.map((r) => r.trackId)).toEqual(all.results.slice(20, 40).map((r) => r.trackId));
      const last = await adapter.searchApps({ route: 'apps.search', term: 'chess', page: 10, country: 'us' });
      expect(last.resultCount).toBe(Math.max(0, Math.min(20, all.results.length - 180)));
    });

    it('percent-encodes terms, so non-Latin and reserved characters search as typed', async () => {
      const japanese = await adapter.searchApps({
        route: 'apps.search',
        term: 'チェス',
        page: 1,
        country: 'jp',
        lang: 'ja-jp',
      });
      expect(japanese.resultCount).toBeGreaterThan(0);
      expect((japanese.results[0] as Json).trackName).toContain('チェス');
      const reserved = await adapter.searchApps({
        route: 'apps.search',
        term: 'chess&country=jp#x',
        page: 1,
        country: 'us',
      });
      expect(reserved.resultCount).toBe(0);
    });
  });

  describe('apps.get', () => {
    it('looks up a track id or a bundle identifier', async () => {
      const byId = await adapter.getApp({ route: 'apps.get', appId: String(REFERENCE_IDS.app), country: 'us' });
      expect(byId).toMatchObject({
        resultCount: 1,
        results: [{ wrapperType: 'software', trackId: REFERENCE_IDS.app, trackName: 'Facebook' }],
      });
      const byBundle = await adapter.getApp({
        route: 'apps.get',
        appId: 'com.facebook.facebook',
        country: 'de',
        lang: 'de-de',
      });
      expect(byBundle).toMatchObject({ resultCount: 1, results: [{ trackId: REFERENCE_IDS.app, currency: 'EUR' }] });
    });

    it('answers an empty list for unknown apps, apps not sold in the storefront, and developer ids', async () => {
      for (const [appId, country] of [
        ['999999999', 'us'],
        [String(REFERENCE_IDS.japanOnlyApp), 'us'],
        ['com.nobody.nothing', 'us'],
        [String(REFERENCE_IDS.developer), 'us'],
      ]) {
        expect(await adapter.getApp({ route: 'apps.get', appId, country })).toEqual({ resultCount: 0, results: [] });
      }
      expect(
        (await adapter.getApp({ route: 'apps.get', appId: String(REFERENCE_IDS.japanOnlyApp), country: 'jp' }))
          .resultCount,
      ).toBe(1);
    });

    it("turns Apple's errorMessage for an unknown lang into UPSTREAM_BAD_RESPONSE", async () => {
      const error = await wireErrorOf(
        adapter.getApp({ route: 'apps.get', appId: String(REFERENCE_IDS.app), country: 'us', lang: 'xx-yy' }),
      );
      expect(error.code).toBe(ErrorCode.UpstreamBadResponse);
      expect(error.message).toBe(
        `upstream store answered an error: Invalid value(s) for key(s): [language] (${new URL(emulator.url).host})`,
      );
    });
  });

  describe('apps.reviews', () => {
    it('maps a feed page of 50 to JSON reviews, newest first or most helpful first', async () => {
      const recent = (
        await adapter.appReviews({
          route: 'apps.reviews',
          appId: String(REFERENCE_IDS.app),
          page: 1,
          country: 'us',
          sort: 'recent',
        })
      ).results;
      expect(recent).toHaveLength(50);
      for (const field of REVIEW_FIELDS) expect(recent[0]).toHaveProperty(field);
      expect(recent[0]).toMatchObject({ appId: String(REFERENCE_IDS.app) });
      expect(typeof recent[0].score).toBe('number');
      expect(recent[0].url).toMatch(/^https:\/\/itunes\.apple\.com\/us\/review\?id=284882215&type=Purple%20Software$/);
      expect(recent[0].text).not.toContain('<');
      expect(newestFirst(recent)).toBe(true);
      const helpful = (
        await adapter.appReviews({
          route: 'apps.reviews',
          appId: String(REFERENCE_IDS.app),
          page: 1,
          country: 'us',
          sort: 'helpful',
        })
      ).results;
      expect(byVotes(helpful)).toBe(true);
      const last = await adapter.appReviews({
        route: 'apps.reviews',
        appId: String(REFERENCE_IDS.app),
        page: 10,
        country: 'us',
        sort: 'recent',
      });
      expect(last.resultCount).toBe(50);
      expect(last.results[0].id).not.toBe(recent[0].id);
    });

    it("handles the feed's single-entry case", async () => {
      const single = await adapter.appReviews({
        route: 'apps.reviews',
        appId: String(REFERENCE_IDS.singleReviewApp),
        page: 1,
        country: 'us',
        sort: 'recent',
      });
      expect(single.resultCount).toBe(1);
      expect(single.results[0]).toMatchObject({
        appId: String(REFERENCE_IDS.singleReviewApp),
        userName: expect.any(String),
        title: expect.any(String),
      });
      expect(single.results[0].id).toMatch(/^\d+$/);
      expect(single.results[0].score).toBeGreaterThanOrEqual(1);
    });

    it('resolves a bundle identifier to the track id first, and answers empty lists when there is nothing', async () => {
      let byBundle: Review[] = [];
      const requests = await requestsDuring(emulator, async () => {
        byBundle = (
          await adapter.appReviews({
            route: 'apps.reviews',
            appId: 'com.facebook.Facebook',
            page: 2,
            country: 'gb',
            sort: 'recent',
          })
        ).results;
      });
      expect(requests).toBe(2);
      expect(byBundle).toHaveLength(50);
      expect(byBundle[0].appId).toBe(String(REFERENCE_IDS.app));
      const empty = { resultCount: 0, results: [] };
      expect(
        await adapter.appReviews({
          route: 'apps.reviews',
          appId: 'com.nobody.nothing',
          page: 1,
          country: 'us',
          sort: 'recent',
        }),
      ).toEqual(empty);
      expect(
        await adapter.appReviews({
          route: 'apps.reviews',
          appId: String(REFERENCE_IDS.unreviewedApp),
          page: 1,
          country: 'us',
          sort: 'recent',
        }),
      ).toEqual(empty);
      expect(
        await adapter.appReviews({
          route: 'apps.reviews',
          appId: String(REFERENCE_IDS.singleReviewApp),
          page: 2,
          country: 'us',
          sort: 'helpful',
        }),
      ).toEqual(empty);
    });
  });

  describe('apps.similar', () => {
    it('returns customers-also-bought apps, reading the token (page, then its module script) once and again only after a 401', async () => {
      const fresh = new AppleStoreAdapter(
        configFor(emulator.url).apple,
        new FetchUpstreamHttpClient({ timeoutMs: 30_000, userAgent: 'x' }),
      );
      const query = { route: 'apps.similar', appId: String(REFERENCE_IDS.app), country: 'us' } as const;
      let similar: Resource[] = [];
      expect(
        await requestsDuring(emulator, async () => (similar = (await fresh.similarApps(query)).results as Resource[])),
      ).toBe(3);
      expect(similar.length).toBeGreaterThan(3);
      expect(similar.every((r) => r.type === 'apps' && r.id !== String(REFERENCE_IDS.app))).toBe(true);
      expect(await requestsDuring(emulator, () => fresh.similarApps(query))).toBe(1);
      emulator.rotateToken();
      let again: Resource[] = [];
      expect(
        await requestsDuring(emulator, async () => (again = (await fresh.similarApps(query)).results as Resource[])),
      ).toBe(4);
      expect(again.map((r) => r.id)).toEqual(similar.map((r) => r.id));
    });

    it('resolves bundle identifiers and answers an empty list for apps the storefront does not sell', async () => {
      const byBundle = await adapter.similarApps({
        route: 'apps.similar',
        appId: 'com.facebook.Facebook',
        country: 'fr',
      });
      expect(byBundle.resultCount).toBeGreaterThan(0);
      expect(
        await adapter.similarApps({ route: 'apps.similar', appId: String(REFERENCE_IDS.japanOnlyApp), country: 'us' }),
      ).toEqual({ resultCount: 0, results: [] });
    });
  });

  describe('bundles', () => {
    it('searches bundles a page of 20 at a time', async () => {
      const page1 = (
        await adapter.searchBundles({ route: 'bundles.search', term: 'essentials', page: 1, country: 'us' })
      ).results as Resource[];
      const page2 = (
        await adapter.searchBundles({ route: 'bundles.search', term: 'essentials', page: 2, country: 'us' })
      ).results as Resource[];
      expect(page1).toHaveLength(20);
      expect(page1.every((b) => b.type === 'app-bundles')).toBe(true);
      expect(page2.length).toBeGreaterThan(0);
      expect(page2.map((b) => b.id)).not.toContain(page1[0].id);
      expect(await adapter.searchBundles({ route: 'bundles.search', term: 'zzzqqq', page: 1, country: 'us' })).toEqual({
        resultCount: 0,
        results: [],
      });
    });

    it('gets a bundle with its member apps', async () => {
      const found = await adapter.getBundle({
        route: 'bundles.get',
        bundleId: String(REFERENCE_IDS.bundle),
        country: 'us',
      });
      const [bundle] = found.results as Resource[];
      expect(found.resultCount).toBe(1);
      expect(bundle).toMatchObject({
        id: String(REFERENCE_IDS.bundle),
        type: 'app-bundles',
        attributes: { name: 'Meta Essentials' },
      });
      expect(bundle.relationships!.apps.data.map((a) => a.attributes?.name)).toEqual([
        'Facebook',
        'Messenger',
        'Meta Business Suite',
      ]);
      expect(await adapter.getBundle({ route: 'bundles.get', bundleId: '1999999999', country: 'us' })).toEqual({
        resultCount: 0,
        results: [],
      });
    });

    it('derives bundle reviews from the same page of every member app, merged in order', async () => {
      const members = ['284882215', '454638411', '514643583'];
      for (const sort of ['recent', 'helpful'] as const) {
        const merged = (
          await adapter.bundleReviews({
            route: 'bundles.reviews',
            bundleId: String(REFERENCE_IDS.bundle),
            page: 1,
            country: 'us',
            sort,
          })
        ).results;
        const separately = await Promise.all(
          members.map((appId) => adapter.appReviews({ route: 'apps.reviews', appId, page: 1, country: 'us', sort })),
        );
        expect(merged).toHaveLength(separately.reduce((n, r) => n + r.resultCount, 0));
        expect(new Set(merged.map((r) => r.appId))).toEqual(new Set(members));
        expect(sort === 'recent' ? newestFirst(merged) : byVotes(merged)).toBe(true);
      }
      expect(
        await adapter.bundleReviews({
          route: 'bundles.reviews',
          bundleId: '1999999999',
          page: 1,
          country: 'us',
          sort: 'recent',
        }),
      ).toEqual({ resultCount: 0, results: [] });
    });

    it("derives similar bundles from the members' similar apps, each once, members left out", async () => {
      const similar = (
        await adapter.similarBundles({
          route: 'bundles.similar',
          bundleId: String(REFERENCE_IDS.bundle),
          country: 'us',
        })
      ).results as Resource[];
      const ids = similar.map((r) => r.id);
      expect(ids.length).toBeGreaterThan(5);
      expect(new Set(ids).size).toBe(ids.length);
      for (const member of ['284882215', '454638411', '514643583']) expect(ids).not.toContain(member);
      const ofFacebook = (await adapter.similarApps({ route: 'apps.similar', appId: '284882215', country: 'us' }))
        .results as Resource[];
      for (const app of ofFacebook.filter((a) => !['454638411', '514643583'].includes(a.id)))
        expect(ids).toContain(app.id);
    });
  });

  describe('developers.get', () => {
    it('returns the artist, then its apps', async () => {
      const found = (
        await adapter.getDeveloper({ route: 'developers.get', developerId: String(REFERENCE_IDS.developer) })
      ).results as Json[];
      expect(found[0]).toMatchObject({
        wrapperType: 'artist',
        artistId: REFERENCE_IDS.developer,
        artistName: 'Meta Platforms, Inc.',
      });
      expect(found.length).toBeGreaterThan(3);
      expect(found.slice(1).every((a) => a.wrapperType === 'software' && a.artistId === REFERENCE_IDS.developer)).toBe(
        true,
      );
    });

    it('answers an empty list for unknown ids and for app ids', async () => {
      for (const developerId of ['999999999', String(REFERENCE_IDS.app)]) {
        expect(await adapter.getDeveloper({ route: 'developers.get', developerId })).toEqual({
          resultCount: 0,
          results: [],
        });
      }
    });
  });
});
