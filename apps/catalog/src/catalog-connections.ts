import { connectRedis, type RedisClient, redisReady } from '@appcat/redis';
import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { RedisOptions } from 'ioredis';
import { CATALOG_CONFIG } from './catalog-tokens.js';
import type { CatalogConfig, RedisSettings } from './config.js';
import { FetchUpstreamHttpClient } from './upstream/upstream-http-client.js';

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
 * The connections one catalog replica holds, opened and closed in one place: the shared Redis (cache,
 * rate limits, breakers, refresh queue), its pub/sub subscriber, and the fetch client's proxy
 * connections. The collaborators built on them are providers of their own (catalog-providers.ts).
 */
@Injectable()
export class CatalogConnections implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('CatalogConnections');
  readonly redis: RedisClient;
  /** Fill notifications; a subscriber queues SUBSCRIBE until connected and resubscribes after a reconnect. */
  readonly subscriber: RedisClient;
  /** The fetch client that reaches the network (through the egress's proxy when it has one). */
  readonly network: FetchUpstreamHttpClient;
  private readonly started: (() => Promise<unknown>)[] = [];

  constructor(@Inject(CATALOG_CONFIG) private readonly config: CatalogConfig) {
    this.redis = connectCatalogRedis(config.redis, 'catalog');
    this.subscriber = connectCatalogRedis(config.redis, 'catalog-fills', {
      enableOfflineQueue: true,
      commandTimeout: undefined,
      maxRetriesPerRequest: null,
    });
    for (const connection of [this.redis, this.subscriber]) connection.on('error', () => undefined);
    this.network = new FetchUpstreamHttpClient({
      timeoutMs: config.upstreamTimeoutMs,
      userAgent: config.apple.userAgent,
    });
  }

  /** Runs `start` once Redis has been waited for (the fill notifier's subscription). */
  onceConnected(start: () => Promise<unknown>): void {
    this.started.push(start);
  }

  /** Waits a moment for Redis; if it is unreachable the catalog starts without it and works uncached until it is back. */
  async onModuleInit(): Promise<void> {
    if (!(await redisReady(this.redis, REDIS_STARTUP_WAIT_MS))) {
      this.logger.warn(
        `Redis at ${new URL(this.config.redis.url).host} not reachable; starting without the shared cache, rate limits are per replica until it is`,
      );
    }
    for (const start of this.started) void start();
  }

  /** Readiness: the shared Redis answers. */
  async pingRedis(): Promise<void> {
    await this.redis.ping();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.network.close();
    this.subscriber.disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
