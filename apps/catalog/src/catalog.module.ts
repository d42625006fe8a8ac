import { type DynamicModule, Module } from '@nestjs/common';
import { CatalogInfrastructure } from './catalog-infrastructure.js';
import { CatalogController } from './catalog.controller.js';
import type { CatalogConfig } from './config.js';
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
        { provide: CatalogInfrastructure, useFactory: () => CatalogInfrastructure.start(config, http) },
        {
          provide: STORE_ADAPTER,
          useFactory: (infrastructure: CatalogInfrastructure) => createStoreAdapter(config, infrastructure.http, infrastructure.store),
          inject: [CatalogInfrastructure],
        },
      ],
    };
  }
}
