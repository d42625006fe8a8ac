import { NatsRpcClient, TypedRpc } from '@appcat/microservice';
import { GatewayMetrics } from '@appcat/ops';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { GATEWAY_CONFIG } from './config.provider.js';
import type { GatewayConfig } from './config.js';
import type { HttpError } from './errors/http-error.js';
import { httpErrorFor } from './errors/http-status.js';

export const NATS_RPC = Symbol('NATS_RPC');
export const GATEWAY_RPC = Symbol('GATEWAY_RPC');

/** What every gateway client calls payments and catalog through: a failure comes out as its HttpError. */
export type GatewayRpc = TypedRpc<HttpError>;

/** The gateway's one NATS connection (a factory: connecting is asynchronous), each request timed in the metrics. */
export const natsRpcProvider = {
  provide: NATS_RPC,
  inject: [GATEWAY_CONFIG, GatewayMetrics],
  useFactory: async (config: GatewayConfig, metrics: GatewayMetrics) => {
    const nats = await NatsRpcClient.connect(config.nats, 'gateway');
    nats.onRequest = (subject, seconds, outcome) => metrics.natsRequestSeconds.observe({ subject, outcome }, seconds);
    return nats;
  },
};

/** TypedRpc over that connection, failures translated by httpErrorFor (a factory: the translation is a function). */
export const gatewayRpcProvider = {
  provide: GATEWAY_RPC,
  inject: [NATS_RPC, GATEWAY_CONFIG],
  useFactory: (nats: NatsRpcClient, config: GatewayConfig): GatewayRpc =>
    new TypedRpc(nats, (error) => httpErrorFor(error.code, error.message), { batchMaxItems: config.rpcBatchMax }),
};

/** Drains the NATS connection after the HTTP server stopped taking requests. */
@Injectable()
export class NatsRpcShutdown implements OnApplicationShutdown {
  constructor(@Inject(NATS_RPC) private readonly nats: NatsRpcClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.nats.close();
  }
}
