import { QueueGroup } from '@appcat/contracts';
import { natsServerOptions, WireExceptionFilter } from '@appcat/microservice';
import { type INestMicroservice, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { PaymentsConfig } from './config/payments-config.js';
import { PaymentsModule } from './payments.module.js';

export interface PaymentsAppOptions {
  logger?: LoggerService | LogLevel[] | false;
}

/** Builds the payments microservice and starts answering on NATS. main.ts and the tests share it. */
export async function createPaymentsApp(config: PaymentsConfig, options: PaymentsAppOptions = {}): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(PaymentsModule.forConfig(config), {
    ...natsServerOptions(config.nats, QueueGroup.Payments, 'payments'),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
  });
  app.useGlobalFilters(new WireExceptionFilter());
  await app.listen();
  return app;
}
