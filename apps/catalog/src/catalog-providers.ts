import { CatalogMetrics } from '@appcat/ops';
import { PRICED_ROUTES } from '@appcat/routes';
import type { Provider } from '@nestjs/common';
import { FillNotifier } from './cache/fill-notifier.js';
import { RedisResourceStore } from './cache/redis-resource-store.js';
import { RefreshQueue } from './cache/refresh-queue.js';
import { CatalogConnections } from './catalog-connections.js';
import { CATALOG_CONFIG } from './catalog-tokens.js';
import type { CatalogConfig } from './config.js';
import { createStoreAdapter, upstreamRateLimits } from './store/create-store-adapter.js';
import { STORE_ADAPTER } from './store/store-adapter.js';
import { RedisCircuitBreaker } from './upstream/circuit-breaker.js';
import { GuardedHttpClient } from './upstream/guarded-http-client.js';
import { MeasuredUpstreamHttpClient } from './upstream/measured-http-client.js';
import { RedisRateLimiter } from './upstream/rate-limiter.js';
import { UpstreamAvailability } from './upstream/upstream-availability.js';
import { UPSTREAM_HTTP_CLIENT, type UpstreamHttpClient } from './upstream/upstream-http-client.js';

/**
 * The catalog's object graph, one provider per collaborator: the shared cache on Redis, the upstream
 * client guarded by per-host breakers and rate limiters, and the store adapter on both. Their
 * constructors take settings as well as collaborators, so each is built by a factory naming what it
 * needs; the connections they share open and close in {@link CatalogConnections}.
 */
export function catalogProviders(config: CatalogConfig): Provider[] {
  const { keyPrefix } = config.redis;
  return [
    CatalogConnections,
    {
      provide: FillNotifier,
      useFactory: (connections: CatalogConnections) => {
        const notifier = new FillNotifier(connections.subscriber, `${keyPrefix}filled`);
        connections.onceConnected(() => notifier.start());
        return notifier;
      },
      inject: [CatalogConnections],
    },
    {
      provide: RefreshQueue,
      useFactory: (connections: CatalogConnections) =>
        new RefreshQueue(connections.redis, keyPrefix, config.budget.demandWindowSeconds),
      inject: [CatalogConnections],
    },
    {
      provide: RedisResourceStore,
      useFactory: (connections: CatalogConnections, notifier: FillNotifier, refreshQueue: RefreshQueue) =>
        new RedisResourceStore(connections.redis, notifier, {
          keyPrefix,
          lockTtlMs: config.cache.lockTtlMs,
          lockWaitMs: config.cache.lockWaitMs,
          failureTtlMs: config.cache.failureTtlMs,
          refreshQueue,
        }),
      inject: [CatalogConnections, FillNotifier, RefreshQueue],
    },
    {
      provide: RedisCircuitBreaker,
      useFactory: (connections: CatalogConnections) =>
        new RedisCircuitBreaker(
          connections.redis,
          keyPrefix,
          config.breaker,
          config.upstreamTimeoutMs + config.rateLimitMaxWaitMs + 1000,
        ),
      inject: [CatalogConnections],
    },
    {
      provide: RedisRateLimiter,
      useFactory: (connections: CatalogConnections) =>
        new RedisRateLimiter(
          connections.redis,
          keyPrefix,
          config.rateLimitMaxWaitMs,
          upstreamRateLimits(config),
          config.budget.egresses,
        ),
      inject: [CatalogConnections],
    },
    {
      provide: UpstreamAvailability,
      useFactory: (connections: CatalogConnections, limiter: RedisRateLimiter, metrics: CatalogMetrics) => {
        const availability = new UpstreamAvailability(connections.redis, keyPrefix, limiter);
        metrics.watchBreakers([...upstreamRateLimits(config).keys()], (upstream) => availability.breakerOpen(upstream));
        return availability;
      },
      inject: [CatalogConnections, RedisRateLimiter, CatalogMetrics],
    },
    {
      provide: UPSTREAM_HTTP_CLIENT,
      useFactory: (
        connections: CatalogConnections,
        metrics: CatalogMetrics,
        breaker: RedisCircuitBreaker,
        limiter: RedisRateLimiter,
      ) => new GuardedHttpClient(new MeasuredUpstreamHttpClient(connections.network, metrics), breaker, limiter),
      inject: [CatalogConnections, CatalogMetrics, RedisCircuitBreaker, RedisRateLimiter],
    },
    // Which adapter answers is configuration (CATALOG_STORE), so it is chosen by a function, not by DI.
    {
      provide: STORE_ADAPTER,
      useFactory: (http: UpstreamHttpClient, store: RedisResourceStore, metrics: CatalogMetrics) => {
        const paths = new Map(PRICED_ROUTES.map((route) => [route.id as string, route.path]));
        return createStoreAdapter(config, http, store, (route, source, outcome) =>
          metrics.upstreamSource.inc({ route: paths.get(route) ?? route, source, outcome }),
        );
      },
      inject: [UPSTREAM_HTTP_CLIENT, RedisResourceStore, CatalogMetrics],
    },
    { provide: CATALOG_CONFIG, useValue: config },
  ];
}
