import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { CATALOG_CONFIG } from '../catalog-tokens.js';
import type { CatalogConfig } from '../config.js';
import { upstreamRateLimits } from '../store/create-store-adapter.js';
import { STORE_ADAPTER, type StoreAdapter } from '../store/store-adapter.js';
import { RedisRateLimiter } from '../upstream/rate-limiter.js';
import { RedisResourceStore } from './redis-resource-store.js';
import { RefreshDrainer } from './refresh-drainer.js';
import { RefreshQueue } from './refresh-queue.js';

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

/**
 * This replica's worker of the shared refresh queue: started once the app is up, refreshing through
 * the store adapter's resources, and stopped before the connections it uses close.
 */
@Injectable()
export class RefreshWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private drainer?: RefreshDrainer;

  constructor(
    @Inject(CATALOG_CONFIG) private readonly config: CatalogConfig,
    @Inject(STORE_ADAPTER) private readonly adapter: StoreAdapter,
    @Inject(RefreshQueue) private readonly queue: RefreshQueue,
    @Inject(RedisResourceStore) private readonly store: RedisResourceStore,
    @Inject(RedisRateLimiter) private readonly limiter: RedisRateLimiter,
  ) {}

  /** The drainer, once started (none for an adapter that cannot rebuild refresh jobs). */
  get refreshDrainer(): RefreshDrainer | undefined {
    return this.drainer;
  }

  onApplicationBootstrap(): void {
    const rebuild = this.adapter.refreshRequest?.bind(this.adapter);
    if (!rebuild || this.drainer) return;
    const { budget, cache } = this.config;
    this.drainer = new RefreshDrainer(this.queue, this.store, this.limiter, rebuild, {
      upstreams: [...upstreamRateLimits(this.config).keys()],
      intervalMs: budget.refreshIntervalMs,
      maxKeys: budget.refreshMaxKeys,
      batchMaxIds: cache.batchMaxIds,
      reserveTokens: budget.refreshReserveTokens,
      guaranteedEveryMs: guaranteedRefreshIntervals(this.config),
    });
    this.drainer.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.drainer?.stop();
  }
}
