import { CatalogMetrics, opsProviders } from '@appcat/ops';
import { type DynamicModule, Module } from '@nestjs/common';
import { RefreshWorker } from './cache/refresh-worker.js';
import { CatalogInfrastructure } from './catalog-infrastructure.js';
import { CatalogReadiness } from './catalog-readiness.js';
import { CATALOG_CONFIG, FETCH_BUDGET_SETTINGS } from './catalog-tokens.js';
import { CatalogController } from './catalog.controller.js';
import type { CatalogConfig } from './config.js';
import { FetchBudget } from './fetch-budget.js';
import { createStoreAdapter } from './store/create-store-adapter.js';
import { STORE_ADAPTER } from './store/store-adapter.js';

@Module({})
export class CatalogModule {
  static forRoot(config: CatalogConfig): DynamicModule {
    return {
      module: CatalogModule,
      controllers: [CatalogController],
      providers: [
        { provide: CATALOG_CONFIG, useValue: config },
        { provide: FETCH_BUDGET_SETTINGS, useValue: config.fetchBudget },
        ...opsProviders({
          service: 'catalog',
          ops: config.ops,
          natsProbe: config.nats,
          metrics: CatalogMetrics,
          readiness: CatalogReadiness,
        }),
        CatalogInfrastructure,
        FetchBudget,
        // Which adapter answers is configuration (CATALOG_STORE), so it is chosen by a function, not by DI.
        {
          provide: STORE_ADAPTER,
          useFactory: (infrastructure: CatalogInfrastructure) =>
            createStoreAdapter(config, infrastructure.http, infrastructure.store),
          inject: [CatalogInfrastructure],
        },
        RefreshWorker,
      ],
    };
  }
}
