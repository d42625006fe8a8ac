import { type DynamicModule, Module } from '@nestjs/common';
import { CatalogInfrastructure } from './catalog-infrastructure.js';
import { CatalogController } from './catalog.controller.js';
import { CatalogOps } from './catalog-ops.js';
import type { CatalogConfig } from './config.js';
import { FetchBudget } from './fetch-budget.js';
import { createStoreAdapter } from './store/create-store-adapter.js';
import { STORE_ADAPTER } from './store/store-adapter.js';
import type { UpstreamHttpClient } from './upstream/upstream-http-client.js';

@Module({})
export class CatalogModule {
  /** @param http the client that reaches the network, e.g. one that counts requests; guarded and cached either way. */
  static register(config: CatalogConfig, http?: UpstreamHttpClient): DynamicModule {
    return {
      module: CatalogModule,
      controllers: [CatalogController],
      providers: [
        { provide: CatalogOps, useFactory: () => new CatalogOps(config) },
        { provide: FetchBudget, useFactory: (ops: CatalogOps) => new FetchBudget(config.fetchBudget, ops.metrics), inject: [CatalogOps] },
        {
          provide: CatalogInfrastructure,
          useFactory: async (ops: CatalogOps) => {
            const infrastructure = await CatalogInfrastructure.start(config, ops.metrics, http);
            ops.attach(infrastructure);
            return infrastructure;
          },
          inject: [CatalogOps],
        },
        {
          provide: STORE_ADAPTER,
          useFactory: (infrastructure: CatalogInfrastructure) => {
            const adapter = createStoreAdapter(config, infrastructure.http, infrastructure.store);
            infrastructure.startRefreshing(adapter);
            return adapter;
          },
          inject: [CatalogInfrastructure],
        },
      ],
    };
  }
}
