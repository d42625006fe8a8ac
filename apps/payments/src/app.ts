import { QueueGroup } from '@appcat/contracts';
import { natsServerOptions, WireExceptionFilter } from '@appcat/microservice';
import type { ServiceAppOptions } from '@appcat/ops';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { PaymentsConfig } from './config/payments-config.js';
import { PaymentsModule } from './payments.module.js';

/**
 * The payments microservice, built but not answering yet: `await app.listen()` starts it (its
 * connections, ops port and facilitator check, as Nest runs the lifecycle hooks) and subscribes it to the
 * payments subjects in the payments queue group; `app.close()` drains and stops it. main.ts and the tests
 * share it.
 */
export async function createPaymentsApp(
  config: PaymentsConfig,
  options: ServiceAppOptions = {},
): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(PaymentsModule.forRoot(config), {
    ...natsServerOptions(config.nats, QueueGroup.Payments, 'payments'),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  app.useGlobalFilters(new WireExceptionFilter());
  return app;
}
