import { startNatsServer } from '@appcat/testing';
import type { INestMicroservice, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NatsConfig } from '@appcat/config';
import { natsServerOptions } from '../../src/nats-transport.js';
import { WireExceptionFilter } from '../../src/wire-exception.js';

export interface StandInService {
  /** Where a client connects: the private nats-server, the services' timeouts. */
  config: NatsConfig;
  service: INestMicroservice;
  stop(): Promise<void>;
}

/** A private nats-server and a Nest microservice answering `module`'s handlers on it, as our services do. */
export async function startStandInService(module: Type<unknown>): Promise<StandInService> {
  const nats = await startNatsServer();
  const config: NatsConfig = { servers: [nats.url], requestTimeoutMs: 10_000, shutdownGraceMs: 0 };
  const service = await NestFactory.createMicroservice(module, {
    ...natsServerOptions(config, 'stand-in', 'stand-in'),
    logger: false,
  });
  service.useGlobalFilters(new WireExceptionFilter());
  await service.listen();
  return {
    config,
    service,
    stop: async () => {
      await service.close();
      await nats.stop();
    },
  };
}
