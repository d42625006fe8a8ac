import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { CatalogInfrastructure } from '../catalog-infrastructure.js';
import { STORE_ADAPTER, type StoreAdapter } from '../store/store-adapter.js';

/**
 * Starts this replica's worker of the shared refresh queue once the app is up, refreshing through the
 * store adapter (which is built on the infrastructure, so the infrastructure cannot take it itself); the
 * infrastructure stops it at shutdown, before its connections close.
 */
@Injectable()
export class RefreshWorker implements OnApplicationBootstrap {
  constructor(
    @Inject(CatalogInfrastructure) private readonly infrastructure: CatalogInfrastructure,
    @Inject(STORE_ADAPTER) private readonly adapter: StoreAdapter,
  ) {}

  onApplicationBootstrap(): void {
    this.infrastructure.startRefreshing(this.adapter);
  }
}
