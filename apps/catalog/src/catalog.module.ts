import { CatalogMetrics, opsProviders } from '@appcat/ops';
import { type DynamicModule, Module } from '@nestjs/common';
import { RefreshWorker } from './cache/refresh-worker.js';
import { catalogProviders } from './catalog-providers.js';
import { CatalogReadiness } from './catalog-readiness.js';
import { FETCH_BUDGET_SETTINGS } from './catalog-tokens.js';
import { catalogControllerFor } from './catalog.controller.js';
import type { CatalogConfig } from './config.js';
import { FetchBudget } from './fetch-budget.js';

@Module({})
export class CatalogModule {
  static forRoot(config: CatalogConfig): DynamicModule {
    return {
      module: CatalogModule,
      controllers: [catalogControllerFor(config.store)],
      providers: [
        { provide: FETCH_BUDGET_SETTINGS, useValue: config.fetchBudget },
        ...opsProviders({
          service: 'catalog',
          ops: config.ops,
          natsProbe: config.nats,
          metrics: CatalogMetrics,
          readiness: CatalogReadiness,
        }),
        ...catalogProviders(config),
        FetchBudget,
        RefreshWorker,
      ],
    };
  }
}
