import { QueueGroup } from '@appcat/contracts';
import { natsServerOptions, WireExceptionFilter } from '@appcat/microservice';
import type { INestMicroservice, LoggerService, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import { CatalogModule } from './catalog.module.js';
import type { CatalogConfig } from './config.js';
import type { UpstreamHttpClient } from './upstream/upstream-http-client.js';

export interface CatalogAppOptions {
  logger?: LoggerService | LogLevel[] | false;
  /**
   * Replaces the plain fetch client that reaches the network (tests count requests through it). It
   * is still wrapped by the rate limiter, the circuit breaker and the shared cache.
   */
  upstreamHttpClient?: UpstreamHttpClient;
}

/**
 * The catalog microservice, configured but NOT yet listening. It connects to Redis (config.redis) for
 * the cache, the rate limiters and the circuit breakers it shares with the other replicas; if Redis
 * is unreachable it still starts and works without it. Call `await app.listen()` to subscribe to
 * catalog.fetch in the catalog queue group, and `app.close()` to drain and stop.
 */
export async function createCatalogApp(config: CatalogConfig, options: CatalogAppOptions = {}): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(CatalogModule.register(config, options.upstreamHttpClient), {
    ...natsServerOptions(config.nats, QueueGroup.Catalog, 'catalog'),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  app.useGlobalFilters(new WireExceptionFilter());
  return app;
}
