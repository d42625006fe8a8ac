/*
 * Google Play's resources as refresh jobs: any replica rebuilds each kind from the job another queued,
 * under the same cache key, and refuses a job whose arguments do not fit.
 */
import type { ResourceRequest } from '../src/cache/resource-store.js';
import type { RefreshJob } from '../src/cache/refresh-queue.js';
import { readCatalogConfig } from '../src/config.js';
import { GooglePlayStoreAdapter } from '../src/google-play/google-play-store-adapter.js';
import { UncachedResources } from '../src/cache/resource-store.js';
import { UNTRACKED } from '../src/cache/provenance.js';
import type { UpstreamHttpClient } from '../src/upstream/upstream-http-client.js';

/** Records the resource each route reads, never loading it. */
class Recorder extends UncachedResources {
  readonly requests: ResourceRequest<unknown>[] = [];
  override async get<T>(request: ResourceRequest<T>): Promise<T | undefined> {
    this.requests.push(request as ResourceRequest<unknown>);
    return undefined;
  }
}

describe("Google Play's refresh jobs", () => {
  const config = readCatalogConfig({ CATALOG_STORE: 'google-play' }).googlePlay;
  const store = new Recorder();
  const adapter = new GooglePlayStoreAdapter(config, {} as UpstreamHttpClient, { store });

  it.each([
    ['developer', () => adapter.getDeveloper({ route: 'developers.get', developerId: 'Mojang', country: 'gb' })],
    ['app', () => adapter.getApp({ route: 'apps.get', appId: 'com.mojang.minecraftpe', country: 'us', lang: 'de' })],
    ['search', () => adapter.searchApps({ route: 'apps.search', term: 'Pocket', page: 2, country: 'us' })],
    [
      'reviews',
      () =>
        adapter.appReviews({
          route: 'apps.reviews',
          appId: 'com.mojang.minecraftpe',
          page: 3,
          country: 'jp',
          sort: 'helpful',
          lang: 'ja',
        }),
    ],
    ['similar', () => adapter.similarApps({ route: 'apps.similar', appId: 'com.mojang.minecraftpe', country: 'us' })],
  ])('rebuilds a %s resource from its job under the same key', async (kind, read) => {
    await read();
    const request = store.requests.at(-1)!;
    expect(request.refresh).toMatchObject({ upstream: 'play', kind });
    const rebuilt = adapter.refreshRequest(JSON.parse(JSON.stringify(request.refresh)) as RefreshJob)!;
    expect([rebuilt.key, rebuilt.freshness]).toEqual([request.key, request.freshness]);
    expect(adapter.upstreamsOf(request.key)).toEqual(['play']);
  });

  it('keys reviews by country, language, order, app and page, the first newest page fresh for less long', async () => {
    const reviews = (page: number, sort: 'recent' | 'helpful') =>
      adapter.appReviews({ route: 'apps.reviews', appId: 'com.x.y', page, country: 'us', sort }, UNTRACKED);
    await reviews(1, 'recent');
    await reviews(2, 'recent');
    await reviews(1, 'helpful');
    const [first, second, helpful] = store.requests.slice(-3);
    expect([first.key, second.key, helpful.key]).toEqual([
      'play:reviews:us:-:recent:com.x.y:1',
      'play:reviews:us:-:recent:com.x.y:2',
      'play:reviews:us:-:helpful:com.x.y:1',
    ]);
    expect(first.freshness.freshMs).toBeLessThan(second.freshness.freshMs);
    expect(helpful.freshness).toEqual(second.freshness);
  });

  it('refuses a job whose arguments do not fit', () => {
    expect(
      adapter.refreshRequest({ upstream: 'play', kind: 'reviews', args: ['us', 'com.x.y', null, 'newest', 1] }),
    ).toBe(undefined);
    expect(adapter.refreshRequest({ upstream: 'play', kind: 'unknown', args: [] })).toBeUndefined();
  });
});
