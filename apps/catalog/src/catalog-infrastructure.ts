import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { FillNotifier } from './cache/fill-notifier.js';
import { RedisResourceStore } from './cache/redis-resource-store.js';
import type { ResourceStore } from './cache/resource-store.js';
import type { CatalogConfig } from './config.js';
import type { CatalogMetrics } from '@appcat/ops';
import { MeasuredUpstreamHttpClient } from './upstream/measured-http-client.js';
import { connectRedis, type RedisClient, redisReady } from './redis/redis-connection.js';
import { upstreamRateLimits } from './store/create-store-adapter.js';
import { RedisCircuitBreaker } from './upstream/circuit-breaker.js';
import { GuardedHttpClient } from './upstream/guarded-http-client.js';
import { RedisRateLimiter } from './upstream/rate-limiter.js';
import { UpstreamAvailability } from './upstream/upstream-availability.js';
import { FetchUpstreamHttpClient, type UpstreamHttpClient } from './upstream/upstream-http-client.js';

/** How long start-up waits for Redis before it goes on without it (and keeps reconnecting). */
const REDIS_STARTUP_WAIT_MS = 3000;

/**
 * What every replica shares through Redis: the resource cache, and the upstream client guarded by
 * per-host rate limiters and circuit breakers. One instance per catalog app; closed with it.
 */
export class CatalogInfrastructure implements OnApplicationShutdown {
  private constructor(
    private readonly redis: RedisClient,
    private readonly subscriber: RedisClient,
    readonly store: ResourceStore,
    readonly http: UpstreamHttpClient,
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
    const store = new RedisResourceStore(redis, notifier, {
      keyPrefix,
      lockTtlMs: config.cache.lockTtlMs,
      lockWaitMs: config.cache.lockWaitMs,
      failureTtlMs: config.cache.failureTtlMs,
    });
    const network = upstream ?? new FetchUpstreamHttpClient({ timeoutMs: config.upstreamTimeoutMs, userAgent: config.apple.userAgent });
    const base = new MeasuredUpstreamHttpClient(network, metrics);
    const breaker = new RedisCircuitBreaker(redis, keyPrefix, config.breaker, config.upstreamTimeoutMs + config.rateLimitMaxWaitMs + 1000);
    const limiter = new RedisRateLimiter(redis, keyPrefix, config.rateLimitMaxWaitMs);
    const http = new GuardedHttpClient(base, breaker, limiter, upstreamRateLimits(config));
    const availability = new UpstreamAvailability(redis, keyPrefix, upstreamRateLimits(config), config.rateLimitMaxWaitMs);
    return new CatalogInfrastructure(redis, subscriber, store, http, availability);
  }

  /** Readiness: the shared Redis answers. */
  async pingRedis(): Promise<void> {
    await this.redis.ping();
  }

  async onApplicationShutdown(): Promise<void> {
    this.subscriber.disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
