import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { FillNotifier } from './cache/fill-notifier.js';
import { RefreshDrainer } from './cache/refresh-drainer.js';
import { RefreshQueue } from './cache/refresh-queue.js';
import { RedisResourceStore } from './cache/redis-resource-store.js';
import type { CatalogConfig } from './config.js';
import type { CatalogMetrics } from '@appcat/ops';
import { MeasuredUpstreamHttpClient } from './upstream/measured-http-client.js';
import { connectRedis, type RedisClient, redisReady } from './redis/redis-connection.js';
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
 * What every replica shares through Redis: the resource cache, and the upstream client guarded by
 * per-host rate limiters and circuit breakers. One instance per catalog app; closed with it.
 */
export class CatalogInfrastructure implements OnApplicationShutdown {
  private drainer?: RefreshDrainer;

  private constructor(
    private readonly config: CatalogConfig,
    private readonly redis: RedisClient,
    private readonly subscriber: RedisClient,
    /** The fetch client this instance made (not one passed in), closed with it: its proxy connections. */
    private readonly ownNetwork: FetchUpstreamHttpClient | undefined,
    readonly store: RedisResourceStore,
    readonly http: UpstreamHttpClient,
    /** The per-host, per-egress budgets; `limiter.isExhausted(host)` says whether a call would be refused now. */
    readonly limiter: RedisRateLimiter,
    readonly refreshQueue: RefreshQueue,
    readonly availability: UpstreamAvailability,
  ) {}

  /** @param upstream the client that reaches the network (default: fetch); it is wrapped, not replaced. */
  static async start(config: CatalogConfig, metrics: CatalogMetrics, upstream?: UpstreamHttpClient): Promise<CatalogInfrastructure> {
    const { keyPrefix } = config.redis;
    // Cache probes arriving together go out in one write instead of one syscall each.
    const redis = connectRedis(config.redis, 'catalog', { enableAutoPipelining: true });
    // A subscriber queues SUBSCRIBE until connected and resubscribes after a reconnect.
    const subscriber = connectRedis(config.redis, 'catalog-fills', { enableOfflineQueue: true, commandTimeout: undefined, maxRetriesPerRequest: null });
    const logger = new Logger('CatalogInfrastructure');
    for (const connection of [redis, subscriber]) connection.on('error', () => undefined);
    if (!(await redisReady(redis, REDIS_STARTUP_WAIT_MS))) {
      logger.warn(`Redis at ${new URL(config.redis.url).host} not reachable; starting without the shared cache, rate limits are per replica until it is`);
    }
    const notifier = new FillNotifier(subscriber, `${keyPrefix}filled`);
    void notifier.start();
    const refreshQueue = new RefreshQueue(redis, keyPrefix, config.budget.demandWindowSeconds);
    const store = new RedisResourceStore(redis, notifier, {
      keyPrefix,
      lockTtlMs: config.cache.lockTtlMs,
      lockWaitMs: config.cache.lockWaitMs,
      failureTtlMs: config.cache.failureTtlMs,
      refreshQueue,
    });
    const ownNetwork = upstream ? undefined : new FetchUpstreamHttpClient({ timeoutMs: config.upstreamTimeoutMs, userAgent: config.apple.userAgent });
    const network: UpstreamHttpClient = upstream ?? ownNetwork!;
    const base = new MeasuredUpstreamHttpClient(network, metrics);
    const breaker = new RedisCircuitBreaker(redis, keyPrefix, config.breaker, config.upstreamTimeoutMs + config.rateLimitMaxWaitMs + 1000);
    const limiter = new RedisRateLimiter(redis, keyPrefix, config.rateLimitMaxWaitMs, upstreamRateLimits(config), config.budget.egresses);
    const http = new GuardedHttpClient(base, breaker, limiter);
    const availability = new UpstreamAvailability(redis, keyPrefix, limiter);
    return new CatalogInfrastructure(config, redis, subscriber, ownNetwork, store, http, limiter, refreshQueue, availability);
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
    await this.ownNetwork?.close();
    this.subscriber.disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
