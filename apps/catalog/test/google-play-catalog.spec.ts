/*
 * Google Play's catalog (CATALOG_STORE=google-play) against the store emulator's Google Play side, on a
 * private Redis and NATS: its own subjects, developer pages followed through their continuations, the
 * same cache, and Google Play's refusals taken as failures of the source.
 */
import { CATALOG_SUBJECTS, ErrorCode } from '@appcat/contracts';
import { PLAY_BLOCKS, PLAY_REFERENCE } from '@appcat/store-emulator';
import { randomUUID } from 'node:crypto';
import { CatalogSystem, listOf } from './support.js';

const developer = (developerId: string, country = 'us') => ({ route: 'developers.get' as const, developerId, country });

describe("Google Play's catalog", () => {
  let system: CatalogSystem;

  beforeAll(async () => {
    system = await CatalogSystem.start({ env: { CATALOG_STORE: 'google-play' } });
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
});
