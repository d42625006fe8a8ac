import { createRegistry, PaymentsMetrics, Readiness, startOpsServer } from '@appcat/ops';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { connectNatsProbe } from '@appcat/microservice';
import type { NatsConnection } from '@nats-io/transport-node';
import type { PaymentsConfig } from './config/payments-config.js';
import { PaymentsResources } from './payments-resources.js';
import { PAYMENTS_CONFIG } from './payments-tokens.js';

/**
 * Health, readiness (NATS, Redis, Postgres, the facilitator's /supported read) and metrics of a payments replica on its ops port. The
 * NATS check uses a small connection of its own: it asks the server, not the Nest transport.
 */
@Injectable()
export class PaymentsOps implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('PaymentsOps');
  readonly metrics = new PaymentsMetrics(createRegistry('payments'));
  private readonly readiness: Readiness;
  private nats?: NatsConnection;
  private opsServer?: { close(): Promise<void> };
  private facilitatorChecked: () => boolean = () => false;

  constructor(
    @Inject(PAYMENTS_CONFIG) private readonly config: PaymentsConfig,
    resources: PaymentsResources,
  ) {
    this.readiness = new Readiness([
      { name: 'nats', check: async () => (this.nats ? this.nats.flush() : Promise.reject(new Error('not connected'))) },
      { name: 'redis', check: () => resources.redis.ping() },
      { name: 'postgres', check: () => resources.pool.query('SELECT 1') },
      { name: 'facilitator', check: async () => (this.facilitatorChecked() ? undefined : Promise.reject(new Error('/supported not read yet'))) },
    ]);
    resources.flusher.onFlushed = (count, oldest) => {
      this.metrics.ledgerFlushed.inc(count);
      this.metrics.ledgerFlushLagSeconds.set(Math.max(0, (Date.now() - oldest) / 1000));
    };
  }

  /** Readiness waits for x402's start-up check of the facilitator (X402Payments.checkFacilitator). */
  waitForFacilitator(checked: () => boolean): void {
    this.facilitatorChecked = checked;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.ops.port === 0) return;
    this.nats = await connectNatsProbe(this.config.nats, 'payments-ops');
    const server = await startOpsServer({ host: this.config.ops.host, port: this.config.ops.port, readiness: this.readiness, registry: this.metrics.registry });
    this.opsServer = server;
    this.logger.log(`ops port on http://${this.config.ops.host}:${server.port}`);
  }

  beforeApplicationShutdown(): void {
    this.readiness.drain();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.opsServer?.close();
    await this.nats?.close();
  }
}
