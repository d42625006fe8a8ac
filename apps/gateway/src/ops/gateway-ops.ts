import { type NatsRpcClient } from '@appcat/microservice';
import { createRegistry, GatewayMetrics, Readiness, startOpsServer } from '@appcat/ops';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { GATEWAY_CONFIG } from '../config.provider.js';
import type { GatewayConfig } from '../config.js';
import { NATS_RPC } from '../nats-rpc.provider.js';

/**
 * The gateway's health, readiness and metrics, and the first step of a graceful stop: on SIGTERM it
 * reports unready (and keeps serving for SHUTDOWN_DELAY_MS) before the HTTP server stops taking
 * requests and finishes the ones in flight.
 */
@Injectable()
export class GatewayOps implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('GatewayOps');
  readonly metrics = new GatewayMetrics(createRegistry('gateway'));
  readonly readiness: Readiness;
  private opsServer?: { close(): Promise<void> };

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(NATS_RPC) nats: NatsRpcClient,
  ) {
    this.readiness = new Readiness([{ name: 'nats', check: () => nats.connection.flush() }]);
    nats.onRequest = (subject, seconds, outcome) => this.metrics.natsRequestSeconds.observe({ subject, outcome }, seconds);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.ops.port === 0) return;
    const server = await startOpsServer({ host: this.config.ops.host, port: this.config.ops.port, readiness: this.readiness, registry: this.metrics.registry });
    this.opsServer = server;
    this.logger.log(`ops port on http://${this.config.ops.host}:${server.port} (/healthz, /readyz, /metrics)`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.readiness.drain();
    if (this.config.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.config.shutdownDelayMs));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.opsServer?.close();
  }
}
