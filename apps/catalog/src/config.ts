import { type OpsConfig, readOpsConfig } from '@appcat/ops';
import {
  type EnvReader,
  readConfig,
  readNatsConfig,
  type NatsConfig,
  readRedisEndpoint,
  type RedisEndpoint,
} from '@appcat/config';
import { STORES, type StoreId } from '@appcat/contracts';
import { hostname } from 'node:os';
import { APPLE_SOURCES, type SourceOrders, sourceOrderVariable, type SourcedRoute } from './apple/apple-sources.js';
import type { FetchBudgetSettings } from './fetch-budget.js';

export const CATALOG_STORES = STORES;
export type CatalogStore = StoreId;

/** How fast the catalog may call one upstream host, shared by every replica. */
export interface UpstreamRateLimit {
  /** Sustained calls a minute; 0 switches the limiter off for that host. */
  perMinute: number;
  /** Calls that may go out at once after a quiet spell. */
  burst: number;
}

export interface AppleStoreConfig {
  /** iTunes Search, Lookup and the customer reviews feed. */
  itunesBaseUrl: string;
  /** apps.apple.com, whose pages carry the web catalogue's bearer token. */
  webBaseUrl: string;
  /** The web catalogue (amp-api, JSON:API). */
  ampApiBaseUrl: string;
  /** Page of webBaseUrl the token is read from; any app page carries it. */
  tokenPagePath: string;
  /** The marketing tools' RSS v2 (top free and paid charts). */
  marketingRssBaseUrl: string;
  /** The store's search hints (suggestions for a prefix). */
  searchHintsBaseUrl: string;
  /** The reviews feed answers only iTunes-like clients. */
  userAgent: string;
  /** What the same-origin catalogue and store pages are asked as: a browser (the catalogue answers 429 otherwise). */
  browserUserAgent: string;
  /** Which sources each route tries, in order (APPLE_SOURCES_<ROUTE>). */
  sources: SourceOrders;
  rateLimits: {
    itunes: UpstreamRateLimit;
    web: UpstreamRateLimit;
    ampApi: UpstreamRateLimit;
    catalogue: UpstreamRateLimit;
    marketingRss: UpstreamRateLimit;
    searchHints: UpstreamRateLimit;
  };
}

export interface GooglePlayConfig {
  /** play.google.com: developer pages and batchexecute. */
  baseUrl: string;
  /** Google Play answers browsers; an iTunes-like client is not one. */
  userAgent: string;
  /** Most continuation pages (100 apps each) followed after a developer page's first. */
  maxContinuations: number;
  rateLimit: UpstreamRateLimit;
}

/** One Redis (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES). */
export interface RedisSettings extends RedisEndpoint {
  /** Prepended to every key and channel, so several deployments can share one Redis. */
  keyPrefix: string;
  /** A Redis command slower than this counts as Redis being down (the catalog then works without it). */
  commandTimeoutMs: number;
}

/** Seconds an upstream resource stays fresh, per kind (see docs/catalog-resilience.md). */
export interface CacheTtls {
  /** An app's lookup record, a bundle. */
  detailsSeconds: number;
  /** A developer's app list, customers-also-bought lists. */
  listsSeconds: number;
  /** A search's whole result list (apps), a bundle search page. */
  searchSeconds: number;
  /** Page 1 of the reviews feed sorted by most recent. */
  recentReviewsSeconds: number;
  /** Every other reviews page. */
  reviewsSeconds: number;
  /** A storefront's top chart (Apple recomputes charts through the day). */
  chartsSeconds: number;
  /** "Nothing here": unknown ids, apps not sold in a storefront. */
  notFoundSeconds: number;
  /** The web catalogue token read from a store page. */
  tokenSeconds: number;
  /** Oldest data served, marked stale, when the upstream fails. */
  staleSeconds: number;
}

export interface CacheSettings {
  ttl: CacheTtls;
  /** A replica loading a resource holds its lock this long, renewed while it works; a dead one frees it after this. */
  lockTtlMs: number;
  /** Longest a request waits for another request (any replica) loading the same resource. */
  lockWaitMs: number;
  /** A failed load is remembered this long, so identical requests fail fast (or get stale data) instead of piling up. */
  failureTtlMs: number;
  /** Lookups of different ids arriving within this window go out as one upstream call. */
  batchWindowMs: number;
  /** Most ids in one batched upstream call. */
  batchMaxIds: number;
}

export interface BreakerSettings {
  /** Consecutive failures (5xx, timeouts, unreachable) that open a host's breaker. */
  failureThreshold: number;
  /** How long a breaker opened by failures stays open before one probe may go; doubles while probes fail. */
  openMs: number;
  /** How long a 403-empty or a 429 without Retry-After keeps the breaker open. */
  throttleOpenMs: number;
  /** Cap of any open period, Retry-After included. */
  maxOpenMs: number;
}

/** One identity Apple sees our calls come from; each has its own token bucket per upstream host. */
export interface Egress {
  /** Names its buckets in Redis: the pod (UPSTREAM_EGRESS_ID) or a proxy's host and port. */
  id: string;
  /** Requests go through this HTTP proxy; absent: straight from this process. */
  proxyUrl?: string;
}

/**
 * The upstream budget (docs/catalog-resilience.md, "The upstream budget"): the rate limits hold per
 * egress identity, entries past their freshness are served stale while a refresh queue shared by the
 * replicas renews them, most requested first, within what the budget leaves.
 */
export interface UpstreamBudgetSettings {
  /** The identities this replica calls from: the proxies of UPSTREAM_EGRESS_PROXIES, or the pod itself. */
  egresses: Egress[];
  /** Demand (requests per key) is counted over this sliding window to order the refresh queue. */
  demandWindowSeconds: number;
  /** How often each replica looks at the refresh queue. */
  refreshIntervalMs: number;
  /** Most keys one replica takes from the queue at a time (grouped into batched calls). */
  refreshMaxKeys: number;
  /** Tokens of a host's budget the refreshes leave to callers' cold misses. */
  refreshReserveTokens: number;
  /**
   * Percent of a host's rate refreshes get even while cold misses take every token: one refresh call
   * queues for a token like a caller at this pace (0: refreshes only spend spare tokens).
   */
  refreshMinSharePercent: number;
}

export interface CatalogConfig {
  nats: NatsConfig;
  store: CatalogStore;
  apple: AppleStoreConfig;
  googlePlay: GooglePlayConfig;
  /** Budget of one upstream HTTP request, headers and body, in ms. */
  upstreamTimeoutMs: number;
  /** Longest a request waits for a rate-limiter token before it is refused; 0 refuses at once. */
  rateLimitMaxWaitMs: number;
  redis: RedisSettings;
  ops: OpsConfig;
  cache: CacheSettings;
  breaker: BreakerSettings;
  /** How many catalog.fetch requests this replica works on at once, and how long the rest may wait. */
  fetchBudget: FetchBudgetSettings;
  budget: UpstreamBudgetSettings;
}

export const DEFAULT_UPSTREAM_USER_AGENT = 'iTunes/12.13 (Macintosh; OS X 14.5) AppleWebKit/618.2.12';
export const DEFAULT_BROWSER_USER_AGENT =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Safari/605.1.15';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_PLAY_USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Safari/537.36';

const HOUR = 3600;
const DAY = 24 * HOUR;

function readRateLimit(e: EnvReader, prefix: string, perMinute: number, burst: number): UpstreamRateLimit {
  return {
    perMinute: e.int(`${prefix}_RATE_PER_MIN`, perMinute, { min: 0, max: 1_000_000 }),
    burst: e.int(`${prefix}_BURST`, burst, { min: 1, max: 100_000 }),
  };
}

/** The proxies of UPSTREAM_EGRESS_PROXIES, each an egress named by its host and port; else the pod, named UPSTREAM_EGRESS_ID. */
function readEgresses(e: EnvReader): Egress[] {
  const proxies = (e.optionalString('UPSTREAM_EGRESS_PROXIES') ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const egresses: Egress[] = [];
  for (const proxy of proxies) {
    let url: URL;
    try {
      url = new URL(proxy);
    } catch {
      e.fail(`UPSTREAM_EGRESS_PROXIES has an entry that is not a URL: ${JSON.stringify(proxy)}`);
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      e.fail(`UPSTREAM_EGRESS_PROXIES entries must be http: or https: proxies, got ${url.protocol}`);
    // Named without credentials, which must not reach Redis keys or logs.
    const id = `proxy-${url.host}`;
    if (egresses.some((x) => x.id === id)) e.fail(`UPSTREAM_EGRESS_PROXIES lists ${url.host} twice`);
    egresses.push({ id, proxyUrl: url.href });
  }
  if (egresses.length > 0) return egresses;
  // The pod's own address by default; every pod behind one NAT sets the same id and shares one bucket.
  const id = e.string('UPSTREAM_EGRESS_ID', hostname() || 'local');
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(id))
    e.fail(`UPSTREAM_EGRESS_ID must be 1-100 of A-Z a-z 0-9 . _ -, got ${JSON.stringify(id)}`);
  return [{ id }];
}

/** Each route's source order: names from its own list, each once, at least one. */
function readSourceOrders(e: EnvReader): SourceOrders {
  const orders: Record<string, readonly string[]> = {};
  for (const [route, known] of Object.entries(APPLE_SOURCES) as [SourcedRoute, readonly string[]][]) {
    const name = sourceOrderVariable(route);
    const listed = e
      .string(name, known.join(','))
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    const unknown = listed.filter((s) => !known.includes(s));
    if (unknown.length > 0) e.fail(`${name} lists ${unknown.join(', ')}; its sources are ${known.join(', ')}`);
    if (new Set(listed).size !== listed.length) e.fail(`${name} lists a source twice`);
    if (listed.length === 0) e.fail(`${name} must list at least one of ${known.join(', ')}`);
    orders[route] = listed;
  }
  return orders as SourceOrders;
}

const seconds = (e: EnvReader, name: string, fallback: number) => e.int(name, fallback, { min: 1, max: 30 * DAY });

export function readCatalogConfig(env: Record<string, string | undefined> = process.env): CatalogConfig {
  return readConfig((e) => {
    const tokenPagePath = e.string('APPLE_TOKEN_PAGE_PATH', '/us/app/facebook/id284882215');
    // A path only: "//host" or a scheme would let the setting move the request to another host.
    if (!/^\/(?!\/)[^\s?#\\]*$/.test(tokenPagePath))
      e.fail(`APPLE_TOKEN_PAGE_PATH must be a path starting with one "/", got ${JSON.stringify(tokenPagePath)}`);
    const store = e.oneOf('CATALOG_STORE', 'apple', CATALOG_STORES);
    // Each store's catalog has its own keys, refresh queue and breakers: one store's replicas never take the other's jobs.
    const keyPrefix = e.string('CATALOG_REDIS_PREFIX', store === 'apple' ? 'catalog:' : `catalog-${store}:`);
    // Braces would make a hash tag of the prefix and put every key in one Redis Cluster slot.
    if (/[\s{}]/.test(keyPrefix))
      e.fail(`CATALOG_REDIS_PREFIX must not contain spaces or braces, got ${JSON.stringify(keyPrefix)}`);
    const itunesBaseUrl = e.url('ITUNES_BASE_URL', 'http://127.0.0.1:4010');
    return {
      nats: readNatsConfig(e),
      ops: readOpsConfig(e, 9102),
      store,
      apple: {
        itunesBaseUrl,
        webBaseUrl: e.url('APPLE_WEB_BASE_URL', 'http://127.0.0.1:4010'),
        ampApiBaseUrl: e.url('APPLE_AMP_API_BASE_URL', 'http://127.0.0.1:4010'),
        tokenPagePath,
        // Local default: wherever iTunes is (the store emulator serves these hosts' paths too).
        marketingRssBaseUrl: e.url('APPLE_MARKETING_RSS_BASE_URL', itunesBaseUrl),
        searchHintsBaseUrl: e.url('APPLE_SEARCH_HINTS_BASE_URL', itunesBaseUrl),
        userAgent: e.string('UPSTREAM_USER_AGENT', DEFAULT_UPSTREAM_USER_AGENT),
        browserUserAgent: e.string('UPSTREAM_BROWSER_USER_AGENT', DEFAULT_BROWSER_USER_AGENT),
        sources: readSourceOrders(e),
        // Apple's guidance for Search/Lookup is about 20 calls a minute per IP (per egress). A bucket
        // lets burst + rate through in any minute, so 18 + 2 stays at 20 (20 + 5 went to 25: throttled).
        rateLimits: {
          itunes: readRateLimit(e, 'ITUNES', 18, 2),
          web: readRateLimit(e, 'APPLE_WEB', 6, 2),
          ampApi: readRateLimit(e, 'APPLE_AMP_API', 60, 10),
          catalogue: readRateLimit(e, 'APPLE_CATALOGUE', 30, 5),
          marketingRss: readRateLimit(e, 'APPLE_MARKETING_RSS', 30, 5),
          searchHints: readRateLimit(e, 'APPLE_SEARCH_HINTS', 60, 10),
        },
      },
      googlePlay: {
        baseUrl: e.url('PLAY_BASE_URL', 'http://127.0.0.1:4010'),
        userAgent: e.string('PLAY_USER_AGENT', DEFAULT_PLAY_USER_AGENT),
        maxContinuations: e.int('PLAY_DEVELOPER_MAX_CONTINUATIONS', 5, { min: 0, max: 50 }),
        // Google publishes no figure; scrapers report blocks past a few requests a second from one address.
        rateLimit: readRateLimit(e, 'PLAY', 30, 5),
      },
      upstreamTimeoutMs: e.int('UPSTREAM_TIMEOUT_MS', 5000, { min: 100, max: 120_000 }),
      rateLimitMaxWaitMs: e.int('UPSTREAM_RATE_LIMIT_MAX_WAIT_MS', 2000, { min: 0, max: 60_000 }),
      redis: {
        ...readRedisEndpoint(e, DEFAULT_REDIS_URL),
        keyPrefix,
        commandTimeoutMs: e.int('CATALOG_REDIS_COMMAND_TIMEOUT_MS', 500, { min: 20, max: 60_000 }),
      },
      cache: {
        ttl: {
          detailsSeconds: seconds(e, 'CACHE_TTL_DETAILS_S', 12 * HOUR),
          listsSeconds: seconds(e, 'CACHE_TTL_LISTS_S', DAY),
          searchSeconds: seconds(e, 'CACHE_TTL_SEARCH_S', 2 * HOUR),
          recentReviewsSeconds: seconds(e, 'CACHE_TTL_RECENT_REVIEWS_S', 30 * 60),
          reviewsSeconds: seconds(e, 'CACHE_TTL_REVIEWS_S', 6 * HOUR),
          chartsSeconds: seconds(e, 'CACHE_TTL_CHARTS_S', HOUR),
          notFoundSeconds: seconds(e, 'CACHE_TTL_NOT_FOUND_S', HOUR),
          tokenSeconds: seconds(e, 'CACHE_TTL_TOKEN_S', 6 * HOUR),
          staleSeconds: seconds(e, 'CACHE_STALE_MAX_AGE_S', 7 * DAY),
        },
        lockTtlMs: e.int('CACHE_LOCK_TTL_MS', 3000, { min: 50, max: 120_000 }),
        lockWaitMs: e.int('CACHE_LOCK_WAIT_MS', 8000, { min: 10, max: 120_000 }),
        failureTtlMs: e.int('CACHE_FAILURE_TTL_MS', 2000, { min: 0, max: 600_000 }),
        batchWindowMs: e.int('UPSTREAM_BATCH_WINDOW_MS', 15, { min: 0, max: 1000 }),
        batchMaxIds: e.int('UPSTREAM_BATCH_MAX_IDS', 100, { min: 1, max: 200 }),
      },
      fetchBudget: {
        // 32 slots. In production a cache hit holds its slot well under 1 ms (32 slots outrun a replica's
        // CPU), and misses are paced by Apple's limit (tens of calls a minute per IP, shared by all replicas),
        // so 32 rarely holds back work Apple would take. What it bounds is what one replica holds at once: a
        // search page reads its whole cached list (~0.5 MB of JSON, ~1 MB with the parsed copy), so 32 add
        // ~40 MB at most, well inside the pod's 384 MiB limit. Without Apple's limit (the emulator, 50 ms late)
        // a replica serves about 32 ÷ the time a miss takes, ~380/s on the bench; more comes from replicas.
        // The cost: a batched lookup carries at most 32 of a replica's ids (docs/catalog-resilience.md).
        maxInFlight: e.int('CATALOG_MAX_IN_FLIGHT', 32, { min: 1, max: 100_000 }),
        // 3 s of waiting, plus the upstream timeout (5 s) and a rate-limiter wait (2 s), stays within the
        // gateway's NATS timeout (10 s): a request is not started after its caller has given up on it.
        maxQueueWaitMs: e.int('CATALOG_MAX_QUEUE_WAIT_MS', 3000, { min: 0, max: 120_000 }),
      },
      budget: {
        egresses: readEgresses(e),
        demandWindowSeconds: e.int('CACHE_DEMAND_WINDOW_S', 900, { min: 10, max: 7 * DAY }),
        refreshIntervalMs: e.int('CACHE_REFRESH_INTERVAL_MS', 500, { min: 10, max: 600_000 }),
        refreshMaxKeys: e.int('CACHE_REFRESH_MAX_KEYS', 200, { min: 1, max: 10_000 }),
        refreshReserveTokens: e.int('CACHE_REFRESH_RESERVE_TOKENS', 1, { min: 0, max: 100_000 }),
        refreshMinSharePercent: e.int('CACHE_REFRESH_MIN_SHARE_PERCENT', 20, { min: 0, max: 100 }),
      },
      breaker: {
        failureThreshold: e.int('BREAKER_FAILURE_THRESHOLD', 5, { min: 1, max: 1000 }),
        openMs: e.int('BREAKER_OPEN_MS', 30_000, { min: 10, max: 3_600_000 }),
        throttleOpenMs: e.int('BREAKER_THROTTLE_OPEN_MS', 60_000, { min: 10, max: 3_600_000 }),
        maxOpenMs: e.int('BREAKER_MAX_OPEN_MS', 600_000, { min: 10, max: 86_400_000 }),
      },
    };
  }, env);
}
