import { CatalogMetrics, createRegistry, Readiness, startOpsServer } from '@appcat/ops';
import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { connectNatsProbe } from '@appcat/microservice';
import type { NatsConnection } from '@nats-io/transport-node';
import type { CatalogInfrastructure } from './catalog-infrastructure.js';
import type { CatalogConfig } from './config.js';

/** Health, readiness (NATS, Redis) and metrics of a catalog replica on its ops port. */
@Injectable()
export class CatalogOps implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('CatalogOps');
  private readiness?: Readiness;
  private nats?: NatsConnection;
  private opsServer?: { close(): Promise<void> };

  constructor(
    private readonly config: CatalogConfig,
    readonly metrics: CatalogMetrics = new CatalogMetrics(createRegistry('catalog')),
  ) {}

  /** Called once the shared infrastructure exists, so readiness can ask its Redis. */
  attach(infrastructure: CatalogInfrastructure): void {
    this.readiness = new Readiness([
      { name: 'nats', check: async () => (this.nats ? this.nats.flush() : Promise.reject(new Error('not connected'))) },
      { name: 'redis', check: () => infrastructure.pingRedis() },
    ]);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.ops.port === 0 || !this.readiness) return;
    this.nats = await connectNatsProbe(this.config.nats, 'catalog-ops');
    const server = await startOpsServer({ host: this.config.ops.host, port: this.config.ops.port, readiness: this.readiness, registry: this.metrics.registry });
    this.opsServer = server;
    this.logger.log(`ops port on http://${this.config.ops.host}:${server.port}`);
  }

  beforeApplicationShutdown(): void {
    this.readiness?.drain();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.opsServer?.close();
    await this.nats?.close();
  }
}
