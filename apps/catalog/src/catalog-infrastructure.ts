import { CatalogMetrics } from '@appcat/ops';
import { connectRedis, type RedisClient, redisReady } from '@appcat/redis';
import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { RedisOptions } from 'ioredis';
import { FillNotifier } from './cache/fill-notifier.js';
import { RefreshDrainer } from './cache/refresh-drainer.js';
import { RefreshQueue } from './cache/refresh-queue.js';
import { RedisResourceStore } from './cache/redis-resource-store.js';
import { CATALOG_CONFIG } from './catalog-tokens.js';
import type { CatalogConfig, RedisSettings } from './config.js';
import { MeasuredUpstreamHttpClient } from './upstream/measured-http-client.js';
import { upstreamRateLimits } from './store/create-store-adapter.js';
import { RedisCircuitBreaker } from './upstream/circuit-breaker.js';
import type { StoreAdapter } from './store/store-adapter.js';
import { GuardedHttpClient } from './upstream/guarded-http-client.js';
import { RedisRateLimiter } from './upstream/rate-limiter.js';
import { UpstreamAvailability } from './upstream/upstream-availability.js';
import { FetchUpstreamHttpClient, type UpstreamHttpClient } from './upstream/upstream-http-client.js';

/**
 * Per host with a limit, ms between guaranteed refresh calls: CACHE_REFRESH_MIN_SHARE_PERCENT of its
 * rate over every egress. The steady-state model uses the same figures.
 */
export function guaranteedRefreshIntervals(config: CatalogConfig): Map<string, number> {
  const intervals = new Map<string, number>();
  const share = config.budget.refreshMinSharePercent / 100;
  for (const [upstream, limit] of upstreamRateLimits(config)) {
    const perMinute = limit.perMinute * config.budget.egresses.length * share;
    if (perMinute > 0) intervals.set(upstream, 60_000 / perMinute);
  }
  return intervals;
}

/** How long start-up waits for Redis before it goes on without it (and keeps reconnecting). */
const REDIS_STARTUP_WAIT_MS = 3000;

/**
 * A catalog connection to Redis. A slow or absent Redis must not hold requests: commands time out
 * quickly and are not queued while offline, and the callers treat a failed command as "Redis is down"
 * and carry on without it. On a Redis Cluster, a command caught by a failover is retried on the new
 * primary once it is known.
 */
function connectCatalogRedis(settings: RedisSettings, name: string, overrides: RedisOptions = {}): RedisClient {
  return connectRedis(
    settings,
    {
      connectionName: name,
      commandTimeout: settings.commandTimeoutMs,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      // Keep trying to come back, at most every 2 s.
      retryStrategy: (attempt) => Math.min(2000, 50 * 2 ** Math.min(attempt, 6)),
      // Closing a connection whose socket is already gone otherwise holds the process for 2 s.
      disconnectTimeout: 200,
      ...overrides,
    },
    { retryDelayOnFailover: 100 },
  );
}

/**
 * What every replica shares through Redis: the resource cache, and the upstream client guarded by
 * per-host rate limiters and circuit breakers. One instance per catalog app; closed with it.
 */
@Injectable()
export class CatalogInfrastructure implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('CatalogInfrastructure');
  private readonly redis: RedisClient;
  private readonly subscriber: RedisClient;
  private readonly notifier: FillNotifier;
  /** The fetch client that reaches the network, closed with this: its proxy connections. */
  private readonly network: FetchUpstreamHttpClient;
  private drainer?: RefreshDrainer;
  readonly store: RedisResourceStore;
  readonly http: UpstreamHttpClient;
  /** The per-host, per-egress budgets; `limiter.isExhausted(host)` says whether a call would be refused now. */
  readonly limiter: RedisRateLimiter;
  readonly refreshQueue: RefreshQueue;
  readonly availability: UpstreamAvailability;

  constructor(
    @Inject(CATALOG_CONFIG) private readonly config: CatalogConfig,
    @Inject(CatalogMetrics) metrics: CatalogMetrics,
  ) {
    const { keyPrefix } = config.redis;
    // Cache probes arriving together go out in one write instead of one syscall each.
    this.redis = connectCatalogRedis(config.redis, 'catalog', { enableAutoPipelining: true });
    // A subscriber queues SUBSCRIBE until connected and resubscribes after a reconnect.
    this.subscriber = connectCatalogRedis(config.redis, 'catalog-fills', {
      enableOfflineQueue: true,
      commandTimeout: undefined,
      maxRetriesPerRequest: null,
    });
    for (const connection of [this.redis, this.subscriber]) connection.on('error', () => undefined);
    this.notifier = new FillNotifier(this.subscriber, `${keyPrefix}filled`);
    this.refreshQueue = new RefreshQueue(this.redis, keyPrefix, config.budget.demandWindowSeconds);
    this.store = new RedisResourceStore(this.redis, this.notifier, {
      keyPrefix,
      lockTtlMs: config.cache.lockTtlMs,
      lockWaitMs: config.cache.lockWaitMs,
      failureTtlMs: config.cache.failureTtlMs,
      refreshQueue: this.refreshQueue,
    });
    this.network = new FetchUpstreamHttpClient({
      timeoutMs: config.upstreamTimeoutMs,
      userAgent: config.apple.userAgent,
    });
    const base = new MeasuredUpstreamHttpClient(this.network, metrics);
    const breaker = new RedisCircuitBreaker(
      this.redis,
      keyPrefix,
      config.breaker,
      config.upstreamTimeoutMs + config.rateLimitMaxWaitMs + 1000,
    );
    this.limiter = new RedisRateLimiter(
      this.redis,
      keyPrefix,
      config.rateLimitMaxWaitMs,
      upstreamRateLimits(config),
      config.budget.egresses,
    );
    this.http = new GuardedHttpClient(base, breaker, this.limiter);
    this.availability = new UpstreamAvailability(this.redis, keyPrefix, this.limiter);
  }

  /** Waits a moment for Redis; if it is unreachable the catalog starts without it and works uncached until it is back. */
  async onModuleInit(): Promise<void> {
    if (!(await redisReady(this.redis, REDIS_STARTUP_WAIT_MS))) {
      this.logger.warn(
        `Redis at ${new URL(this.config.redis.url).host} not reachable; starting without the shared cache, rate limits are per replica until it is`,
      );
    }
    void this.notifier.start();
  }
  /** This replica's worker of the refresh queue, once started. */
  get refreshDrainer(): RefreshDrainer | undefined {
    return this.drainer;
  }

  /** Starts this replica's worker of the shared refresh queue, refreshing through the adapter's resources. */
  startRefreshing(adapter: StoreAdapter): RefreshDrainer | undefined {
    const rebuild = adapter.refreshRequest?.bind(adapter);
    if (!rebuild || this.drainer) return this.drainer;
    const { budget, cache } = this.config;
    this.drainer = new RefreshDrainer(this.refreshQueue, this.store, this.limiter, rebuild, {
      upstreams: [...upstreamRateLimits(this.config).keys()],
      intervalMs: budget.refreshIntervalMs,
      maxKeys: budget.refreshMaxKeys,
      batchMaxIds: cache.batchMaxIds,
      reserveTokens: budget.refreshReserveTokens,
      guaranteedEveryMs: guaranteedRefreshIntervals(this.config),
    });
    this.drainer.start();
    return this.drainer;
  }

  /** Readiness: the shared Redis answers. */
  async pingRedis(): Promise<void> {
    await this.redis.ping();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.drainer?.stop();
    await this.network.close();
    this.subscriber.disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
