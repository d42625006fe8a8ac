/*
 * Google Play's catalog (CATALOG_STORE=google-play) against the store emulator's Google Play side, on a
 * private Redis and NATS: its own subjects, developer pages followed through their continuations, the
 * same cache, and Google Play's refusals taken as failures of the source.
 */
import { CATALOG_SUBJECTS, ErrorCode } from '@appcat/contracts';
import { PLAY_BLOCKS, PLAY_REFERENCE, playEmptyReviews } from '@appcat/store-emulator';
import { randomUUID } from 'node:crypto';
import type { Review } from '../src/store/store-adapter.js';
import { CatalogSystem, listOf } from './support.js';

const developer = (developerId: string, country = 'us') => ({ route: 'developers.get' as const, developerId, country });

describe("Google Play's catalog", () => {
  let system: CatalogSystem;

  beforeAll(async () => {
    // No failure memo: a call after a failure of the source asks Google Play again at once.
    system = await CatalogSystem.start({ env: { CATALOG_STORE: 'google-play', CACHE_FAILURE_TTL_MS: '0' } });
  });
  afterAll(() => system.stop());
  beforeEach(() => system.reset());

  it("answers on Google Play's subjects, never on the App Store's", async () => {
    const apple = system.client.request(
      CATALOG_SUBJECTS.apple.fetch,
      { query: developer('1'), requestId: randomUUID() },
      {
        service: 'catalog',
        timeoutMs: 500,
      },
    );
    await expect(apple).rejects.toMatchObject({ code: ErrorCode.ServiceUnavailable });
  });

  it("lists a developer's apps by id, following every continuation page, then serves them from the cache", async () => {
    const first = await system.fetch(developer(PLAY_REFERENCE.googleLlc.id));
    const { results, resultCount } = listOf(first);
    expect(resultCount).toBe(135);
    expect(new Set(results.map((app) => app.appId)).size).toBe(135);
    expect(results[0]).toEqual({
      appId: expect.stringMatching(/^com\.google\./),
      title: expect.any(String),
      url: expect.stringMatching(/\/store\/apps\/details\?id=com\.google\./),
      icon: expect.stringMatching(/^https:\/\//),
      developer: 'Google LLC',
      currency: 'USD',
      price: 0,
      free: true,
      summary: expect.any(String),
      scoreText: expect.any(String),
      score: expect.any(Number),
    });
    // The continuation entries (cluster layout) read into the same shape.
    expect(Object.keys(results[134]).sort()).toEqual(
      Object.keys(results[0])
        .filter((k) => k !== 'currency')
        .sort(),
    );
    expect(system.emulator.stats().byEndpoint).toMatchObject({ 'play-page': 1, 'play-batch': 2 });

    const again = await system.fetch(developer(PLAY_REFERENCE.googleLlc.id));
    expect(again.source).toBe('cache');
    expect(system.emulator.stats().byEndpoint).toMatchObject({ 'play-page': 1, 'play-batch': 2 });
  });

  it('lists a developer by name, prices in the storefront currency, and nothing where it sells nothing', async () => {
    const mojang = listOf(await system.fetch(developer('Mojang')));
    expect(mojang.results.map((app) => [app.price, app.free, app.currency])[0]).toEqual([6.99, false, 'USD']);
    expect(listOf(await system.fetch(developer('Mojang', 'jp'))).results[0]).toMatchObject({
      currency: 'JPY',
      price: 1049,
    });
    expect(listOf(await system.fetch(developer(PLAY_REFERENCE.japanOnly.name, 'us')))).toEqual({
      resultCount: 0,
      results: [],
    });
    expect(listOf(await system.fetch(developer(PLAY_REFERENCE.japanOnly.id, 'jp'))).resultCount).toBe(4);
    expect(listOf(await system.fetch(developer('99999999999999999999')))).toEqual({ resultCount: 0, results: [] });
  });

  it.each(Object.entries(PLAY_BLOCKS))(
    '%s: a failure of the source, throttling to the breaker, nothing cached',
    async (_name, block) => {
      system.emulator.addFault({ ...block, count: 1 });
      const failed = system.fetch(developer('Mojang'));
      await expect(failed).rejects.toMatchObject({ code: ErrorCode.UpstreamThrottled });
      // The breaker is open: the next call fails without reaching Google Play, and nothing was cached.
      const before = system.emulator.requestCount();
      await expect(system.fetch(developer('Mojang'))).rejects.toMatchObject({
        code: ErrorCode.UpstreamThrottled,
        message: expect.stringMatching(/is throttling us/),
      });
      expect(system.emulator.requestCount()).toBe(before);
      expect(await system.peekReply(developer('Mojang'))).toMatchObject({
        unavailable: { code: ErrorCode.UpstreamThrottled },
      });
    },
  );

  it("gets an app's details by package name, per country, from the cache the second time", async () => {
    const minecraft = { route: 'apps.get' as const, appId: PLAY_REFERENCE.minecraft.appId, country: 'us' };
    const first = listOf(await system.fetch(minecraft));
    expect(first.results).toEqual([
      expect.objectContaining({ appId: 'com.mojang.minecraftpe', title: PLAY_REFERENCE.minecraft.title, price: 6.99 }),
    ]);
    expect((await system.fetch(minecraft)).source).toBe('cache');
    expect(listOf(await system.fetch({ ...minecraft, country: 'jp' })).results[0]).toMatchObject({ currency: 'JPY' });
    expect(listOf(await system.fetch({ ...minecraft, appId: 'com.example.nothing' }))).toEqual({
      resultCount: 0,
      results: [],
    });
    expect(system.emulator.stats().byEndpoint['play-page']).toBe(3);
  });

  it('searches apps in pages of 20 over one cached list (the page and its continuations), the exact match first', async () => {
    const search = { route: 'apps.search' as const, term: 'Pocket', page: 1, country: 'us' };
    const first = listOf(await system.fetch(search));
    expect(first.resultCount).toBe(20);
    const second = await system.fetch({ ...search, page: 2 });
    expect(second.source).toBe('cache');
    const ids = [...first.results, ...listOf(second).results].map((app) => app.appId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(system.emulator.stats().byEndpoint).toMatchObject({ 'play-page': 1 });
    const exact = listOf(await system.fetch({ ...search, term: PLAY_REFERENCE.minecraft.title }));
    expect(exact.results[0]).toMatchObject({ appId: PLAY_REFERENCE.minecraft.appId });
    expect(listOf(await system.fetch({ ...search, term: 'zzqqxx' }))).toEqual({ resultCount: 0, results: [] });
  });

  describe('reviews, through batchexecute UsvDTd', () => {
    const reviews = (appId: string, page = 1, sort: 'recent' | 'helpful' = 'recent') => ({
      route: 'apps.reviews' as const,
      appId,
      page,
      country: 'us',
      sort,
    });
    /** Answers the reviews rpc with an empty page, as Google Play does when it does not mean it. */
    const emptyReviews = () => system.emulator.setRequestHook(playEmptyReviews);

    it("pages an app's reviews 50 at a time over the store's tokens, each page cached, to the list's end", async () => {
      const pages = [];
      for (let page = 1; page <= 5; page++)
        pages.push(listOf(await system.fetch(reviews(PLAY_REFERENCE.minecraft.appId, page))));
      expect(pages.map((p) => p.resultCount)).toEqual([50, 50, 50, 30, 0]);
      const all = pages.flatMap((p) => p.results) as unknown as Review[];
      expect(new Set(all.map((r) => r.id)).size).toBe(PLAY_REFERENCE.minecraft.reviews);
      expect(all[0]).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        appId: PLAY_REFERENCE.minecraft.appId,
        userName: expect.any(String),
        userUrl: '',
        userImage: expect.stringMatching(/^https:\/\//),
        version: expect.any(String),
        score: expect.any(Number),
        title: '',
        text: expect.any(String),
        url: expect.stringContaining(`reviewId=${all[0].id}`),
        updated: expect.stringMatching(/^2026-0\dT|^2026-/),
        voteSum: expect.any(Number),
        voteCount: expect.any(Number),
      });
      const times = all.map((r) => Date.parse(r.updated));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      // One request per page; page 5 knew from page 4 (no token) that the list had ended.
      expect(system.emulator.stats().byEndpoint['play-batch']).toBe(4);
      expect((await system.fetch(reviews(PLAY_REFERENCE.minecraft.appId, 3))).source).toBe('cache');

      const helpful = listOf(await system.fetch(reviews(PLAY_REFERENCE.minecraft.appId, 1, 'helpful')))
        .results as unknown as Review[];
      const votes = helpful.map((r) => r.voteSum);
      expect(votes).toEqual([...votes].sort((a, b) => b - a));
    });

    it('answers nothing for an app not sold there and for an unrated one, judged by its details page', async () => {
      expect(listOf(await system.fetch(reviews('com.example.nothing')))).toEqual({ resultCount: 0, results: [] });
      expect(listOf(await system.fetch(reviews(PLAY_REFERENCE.unrated.appId)))).toEqual({
        resultCount: 0,
        results: [],
      });
      expect(listOf(await system.fetch(reviews('com.example.nothing', 2)))).toEqual({ resultCount: 0, results: [] });
    });

    it('takes an empty first page for a rated app as a failure of the source: nothing cached, the next call asks again', async () => {
      emptyReviews();
      await expect(system.fetch(reviews(PLAY_REFERENCE.minecraft.appId))).rejects.toMatchObject({
        code: ErrorCode.UpstreamBadResponse,
        message: expect.stringMatching(/^upstream store answered no reviews for an app rated \d+ times/),
      });
      expect(await system.peek(reviews(PLAY_REFERENCE.minecraft.appId))).toBeNull();
      system.emulator.setRequestHook();
      expect(listOf(await system.fetch(reviews(PLAY_REFERENCE.minecraft.appId))).resultCount).toBe(50);
    });

    it('drops a page whose token Google no longer takes, so the next call reads the chain afresh', async () => {
      expect(listOf(await system.fetch(reviews(PLAY_REFERENCE.minecraft.appId, 1, 'helpful'))).resultCount).toBe(50);
      system.emulator.setRequestHook((request) =>
        request.body?.includes('UsvDTd')
          ? {
              response: {
                status: 200,
                body: `)]}'\n\n${JSON.stringify([['wrb.fr', 'UsvDTd', null, null, null, [5], 'generic']])}`,
              },
            }
          : undefined,
      );
      await expect(system.fetch(reviews(PLAY_REFERENCE.minecraft.appId, 2, 'helpful'))).rejects.toMatchObject({
        code: ErrorCode.UpstreamBadResponse,
      });
      expect(await system.peek(reviews(PLAY_REFERENCE.minecraft.appId, 1, 'helpful'))).toBeNull();
      system.emulator.setRequestHook();
      expect(listOf(await system.fetch(reviews(PLAY_REFERENCE.minecraft.appId, 2, 'helpful'))).resultCount).toBe(50);
    });
  });

  describe("similar apps, through the app page's cluster link", () => {
    const similar = (appId: string, lang?: string) => ({ route: 'apps.similar' as const, appId, country: 'us', lang });

    it("lists the apps of the cluster the app's page links, then serves them from the cache", async () => {
      const first = listOf(await system.fetch(similar(PLAY_REFERENCE.minecraft.appId)));
      expect(first.resultCount).toBe(50);
      expect(first.results.map((app) => app.appId)).not.toContain(PLAY_REFERENCE.minecraft.appId);
      expect(first.results[0]).toMatchObject({
        appId: expect.any(String),
        title: expect.any(String),
        url: expect.stringMatching(/\/store\/apps\/details\?id=/),
        developer: expect.any(String),
        free: expect.any(Boolean),
      });
      expect(system.emulator.stats().byEndpoint['play-page']).toBe(2);
      expect((await system.fetch(similar(PLAY_REFERENCE.minecraft.appId))).source).toBe('cache');
      expect(system.emulator.stats().byEndpoint['play-page']).toBe(2);
    });

    it('answers nothing for an app not sold there, or one whose page links no similar apps', async () => {
      expect(listOf(await system.fetch(similar('com.example.nothing')))).toEqual({ resultCount: 0, results: [] });
      expect(listOf(await system.fetch(similar(PLAY_REFERENCE.unrated.appId)))).toEqual({
        resultCount: 0,
        results: [],
      });
    });

    it('takes a linked cluster page listing nothing as a failure of the source, never cached', async () => {
      system.emulator.setRequestHook((request) =>
        request.path === '/store/apps/collection/cluster'
          ? {
              response: {
                status: 200,
                body: `<script>AF_initDataCallback({key: 'ds:3', hash: '1', data:${JSON.stringify([[null, [Object.assign(Array(22).fill(null), { 21: [[], ['Similar apps']] })]]])}, sideChannel: {}});</script>`,
              },
            }
          : undefined,
      );
      await expect(system.fetch(similar(PLAY_REFERENCE.minecraft.appId, 'de'))).rejects.toMatchObject({
        code: ErrorCode.UpstreamBadResponse,
        message:
          'upstream store answered a similar apps page listing no apps (127.0.0.1:' +
          new URL(system.emulator.url).port +
          ')',
      });
      expect(await system.peek(similar(PLAY_REFERENCE.minecraft.appId, 'de'))).toBeNull();
    });
  });
});
