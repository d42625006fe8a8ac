import { CATALOG_SUBJECTS } from '@appcat/contracts';
import { natsServerOptions, WireExceptionFilter } from '@appcat/microservice';
import type { ServiceAppOptions } from '@appcat/ops';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import { CatalogModule } from './catalog.module.js';
import type { CatalogConfig } from './config.js';

/**
 * The catalog microservice, built but not answering yet: `await app.listen()` starts it and subscribes it
 * to the catalog subjects in the catalog queue group; `app.close()` drains and stops it. It connects to
 * Redis (config.redis) for the cache, the rate limiters and the circuit breakers it shares with the other
 * replicas, waiting up to 3 s for it; if Redis is unreachable it still starts and works without it.
 * main.ts and the tests share it.
 */
export async function createCatalogApp(
  config: CatalogConfig,
  options: ServiceAppOptions = {},
): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(CatalogModule.forRoot(config), {
    ...natsServerOptions(config.nats, CATALOG_SUBJECTS[config.store].queue, 'catalog'),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  app.useGlobalFilters(new WireExceptionFilter());
  return app;
}
