import { type DynamicModule, Module } from '@nestjs/common';
import { CatalogController } from './catalog.controller.js';
import type { CatalogConfig } from './config.js';
import { createStoreAdapter } from './store/create-store-adapter.js';
import { STORE_ADAPTER } from './store/store-adapter.js';
import { FetchUpstreamHttpClient, UPSTREAM_HTTP_CLIENT, type UpstreamHttpClient } from './upstream/upstream-http-client.js';

@Module({})
export class CatalogModule {
  /** @param http replaces the plain fetch client, e.g. with one that counts or caches. */
  static register(config: CatalogConfig, http?: UpstreamHttpClient): DynamicModule {
    return {
      module: CatalogModule,
      controllers: [CatalogController],
      providers: [
        {
          provide: UPSTREAM_HTTP_CLIENT,
          useValue: http ?? new FetchUpstreamHttpClient({ timeoutMs: config.upstreamTimeoutMs, userAgent: config.apple.userAgent }),
        },
        {
          provide: STORE_ADAPTER,
          useFactory: (client: UpstreamHttpClient) => createStoreAdapter(config, client),
          inject: [UPSTREAM_HTTP_CLIENT],
        },
      ],
    };
  }
}
