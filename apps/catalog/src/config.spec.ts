import { ConfigError } from '@appcat/config';
import { hostname } from 'node:os';
import {
  DEFAULT_BROWSER_USER_AGENT,
  DEFAULT_PLAY_USER_AGENT,
  DEFAULT_UPSTREAM_USER_AGENT,
  readCatalogConfig,
} from './config.js';

describe('readCatalogConfig', () => {
  it('defaults every upstream to the local store emulator, and limits and caches as Apple needs', () => {
    expect(readCatalogConfig({})).toEqual({
      store: 'apple',
      upstreamTimeoutMs: 5000,
      rateLimitMaxWaitMs: 2000,
      apple: {
        itunesBaseUrl: 'http://127.0.0.1:4010',
        webBaseUrl: 'http://127.0.0.1:4010',
        ampApiBaseUrl: 'http://127.0.0.1:4010',
        tokenPagePath: '/us/app/facebook/id284882215',
        marketingRssBaseUrl: 'http://127.0.0.1:4010',
        searchHintsBaseUrl: 'http://127.0.0.1:4010',
        userAgent: DEFAULT_UPSTREAM_USER_AGENT,
        browserUserAgent: DEFAULT_BROWSER_USER_AGENT,
        sources: {
          'apps.search': ['itunes', 'catalogue', 'amp-api'],
          'apps.get': ['itunes', 'catalogue'],
          'apps.reviews': ['feed', 'feed-id-first', 'catalogue', 'page'],
          'apps.similar': ['amp-api', 'catalogue', 'page'],
          'bundles.search': ['amp-api', 'catalogue'],
          'bundles.get': ['amp-api', 'catalogue', 'page'],
          'developers.get': ['itunes', 'catalogue'],
          'apps.ratings': ['customer-reviews', 'app-facts'],
          'apps.privacy': ['amp-api', 'catalogue'],
          'charts.get': ['itunes-rss', 'marketing-rss'],
          'suggestions.search': ['hints'],
        },
        rateLimits: {
          itunes: { perMinute: 18, burst: 2 },
          web: { perMinute: 6, burst: 2 },
          ampApi: { perMinute: 60, burst: 10 },
          catalogue: { perMinute: 30, burst: 5 },
          marketingRss: { perMinute: 30, burst: 5 },
          searchHints: { perMinute: 60, burst: 10 },
        },
      },
      googlePlay: {
        baseUrl: 'http://127.0.0.1:4010',
        userAgent: DEFAULT_PLAY_USER_AGENT,
        maxContinuations: 5,
        rateLimit: { perMinute: 30, burst: 5 },
      },
      nats: { servers: ['nats://127.0.0.1:4222'], requestTimeoutMs: 10_000, shutdownGraceMs: 2000 },
      redis: { url: 'redis://127.0.0.1:6379', clusterNodes: [], keyPrefix: 'catalog:', commandTimeoutMs: 500 },
      cache: {
        ttl: {
          detailsSeconds: 12 * 3600,
          listsSeconds: 24 * 3600,
          searchSeconds: 2 * 3600,
          recentReviewsSeconds: 30 * 60,
          reviewsSeconds: 6 * 3600,
          chartsSeconds: 3600,
          notFoundSeconds: 3600,
          tokenSeconds: 6 * 3600,
          staleSeconds: 7 * 24 * 3600,
        },
        lockTtlMs: 3000,
        lockWaitMs: 8000,
        failureTtlMs: 2000,
        batchWindowMs: 15,
        batchMaxIds: 100,
      },
      breaker: { failureThreshold: 5, openMs: 30_000, throttleOpenMs: 60_000, maxOpenMs: 600_000 },
      fetchBudget: { maxInFlight: 32, maxQueueWaitMs: 3000 },
      budget: {
        egresses: [{ id: hostname() }],
        demandWindowSeconds: 900,
        refreshIntervalMs: 500,
        refreshMaxKeys: 200,
        refreshReserveTokens: 1,
        refreshMinSharePercent: 20,
      },
      ops: {
        port: 9102,
        host: '127.0.0.1',
        logLevel: 'info',
        heapGrowthPercent: 30,
        tracing: { enabled: false, protocol: 'http/protobuf', sampler: 'parentbased_always_on', samplerRatio: 1 },
      },
    });
  });

  it('reads every setting from the environment', () => {
    const config = readCatalogConfig({
      REDIS_URL: 'rediss://cache.internal:6380/2',
      CATALOG_REDIS_PREFIX: 'cat-eu:',
      ITUNES_RATE_PER_MIN: '0',
      APPLE_AMP_API_BURST: '3',
      CACHE_TTL_SEARCH_S: '60',
      CACHE_STALE_MAX_AGE_S: '86400',
      BREAKER_THROTTLE_OPEN_MS: '5000',
      UPSTREAM_RATE_LIMIT_MAX_WAIT_MS: '0',
    });
    expect(config.redis).toMatchObject({ url: 'rediss://cache.internal:6380/2', keyPrefix: 'cat-eu:' });
    expect(config.apple.rateLimits).toMatchObject({ itunes: { perMinute: 0 }, ampApi: { perMinute: 60, burst: 3 } });
    expect(config.cache.ttl).toMatchObject({ searchSeconds: 60, staleSeconds: 86_400 });
    expect(config.breaker.throttleOpenMs).toBe(5000);
    expect(config.rateLimitMaxWaitMs).toBe(0);
  });

  it('rejects an unknown store, a bad timeout, a non-HTTP base URL, a token page path that names a host, and a bad Redis URL or TTL', () => {
    const read = () =>
      readCatalogConfig({
        CATALOG_STORE: 'google',
        UPSTREAM_TIMEOUT_MS: '0',
        ITUNES_BASE_URL: 'file:///etc',
        APPLE_TOKEN_PAGE_PATH: '//evil.example/x',
        REDIS_URL: 'http://redis',
        CACHE_TTL_DETAILS_S: '0',
      });
    expect(read).toThrow(ConfigError);
    try {
      read();
    } catch (error) {
      expect((error as ConfigError).problems).toHaveLength(6);
    }
  });

  it("reads each route's source order, and refuses unknown, repeated or no sources naming the setting", () => {
    const config = readCatalogConfig({ APPLE_SOURCES_APPS_REVIEWS: ' catalogue , page,feed ' });
    expect(config.apple.sources['apps.reviews']).toEqual(['catalogue', 'page', 'feed']);
    expect(config.apple.sources['apps.get']).toEqual(['itunes', 'catalogue']);
    expect(() => readCatalogConfig({ APPLE_SOURCES_APPS_SIMILAR: 'amp-api,feed' })).toThrow(
      /APPLE_SOURCES_APPS_SIMILAR lists feed; its sources are amp-api, catalogue, page/,
    );
    expect(() => readCatalogConfig({ APPLE_SOURCES_BUNDLES_GET: 'page,page' })).toThrow(
      /APPLE_SOURCES_BUNDLES_GET lists a source twice/,
    );
    expect(() => readCatalogConfig({ APPLE_SOURCES_DEVELOPERS_GET: ' , ' })).toThrow(
      /APPLE_SOURCES_DEVELOPERS_GET must list at least one of itunes, catalogue/,
    );
  });

  it('reads the egresses: the proxies listed, each by host and port, or the pod by its id', () => {
    expect(readCatalogConfig({ UPSTREAM_EGRESS_ID: 'nat-eu-1' }).budget.egresses).toEqual([{ id: 'nat-eu-1' }]);
    expect(
      readCatalogConfig({ UPSTREAM_EGRESS_PROXIES: 'http://user:secret@10.0.0.1:3128, http://10.0.0.2:3128' }).budget
        .egresses,
    ).toEqual([
      { id: 'proxy-10.0.0.1:3128', proxyUrl: 'http://user:secret@10.0.0.1:3128/' },
      { id: 'proxy-10.0.0.2:3128', proxyUrl: 'http://10.0.0.2:3128/' },
    ]);
    for (const env of [
      { UPSTREAM_EGRESS_PROXIES: 'socks5://10.0.0.1:1080' },
      { UPSTREAM_EGRESS_PROXIES: 'http://a:1,http://a:1' },
      { UPSTREAM_EGRESS_ID: 'has space' },
    ]) {
      expect(() => readCatalogConfig(env)).toThrow(ConfigError);
    }
  });

  it("gives Google Play's catalog its own Redis prefix, so its keys and refresh queue are its own", () => {
    const config = readCatalogConfig({ CATALOG_STORE: 'google-play', PLAY_RATE_PER_MIN: '12' });
    expect(config.store).toBe('google-play');
    expect(config.redis.keyPrefix).toBe('catalog-google-play:');
    expect(config.googlePlay.rateLimit).toEqual({ perMinute: 12, burst: 5 });
    expect(() => readCatalogConfig({ CATALOG_STORE: 'amazon' })).toThrow(ConfigError);
  });
});
