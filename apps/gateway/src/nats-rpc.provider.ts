import { NatsRpcClient } from '@appcat/microservice';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { GATEWAY_CONFIG } from './config.provider.js';
import type { GatewayConfig } from './config.js';

export const NATS_RPC = Symbol('NATS_RPC');

export const natsRpcProvider = {
  provide: NATS_RPC,
  inject: [GATEWAY_CONFIG],
  useFactory: (config: GatewayConfig) => NatsRpcClient.connect(config.nats, 'gateway'),
};

/** Drains the NATS connection after the HTTP server stopped taking requests. */
@Injectable()
export class NatsRpcShutdown implements OnApplicationShutdown {
  constructor(@Inject(NATS_RPC) private readonly nats: NatsRpcClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.nats.close();
  }
}
