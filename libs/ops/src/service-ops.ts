import type { NatsConfig } from '@appcat/config';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type Provider,
  type Type,
} from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { Registry } from 'prom-client';
import { createRegistry, METRICS_REGISTRY } from './metrics.js';
import { connectNatsProbe } from './nats-probe.js';
import type { OpsConfig } from './ops-config.js';
import { Readiness, type ReadinessCheck, startOpsServer } from './ops-server.js';
import { flushTraces } from './tracing.js';

/** What a service's ops port is built from. */
export interface OpsSettings {
  /** The service's name: the metrics' `service` label and the probe connection's name. */
  service: string;
  ops: OpsConfig;
  /**
   * For a service whose NATS connection is Nest's transport (payments, catalog): a small connection of
   * the ops' own, whose flush is the `nats` check. The gateway checks its own client instead.
   */
  natsProbe?: NatsConfig;
  /** After SIGTERM, how long the service keeps serving while it reports unready (the gateway's SHUTDOWN_DELAY_MS); 0 by default. */
  shutdownDelayMs?: number;
}

/** A service's readiness checks: the dependencies it needs before it should get traffic. */
export interface ReadinessChecks {
  readonly checks: ReadinessCheck[];
}

/** Injection tokens of {@link ServiceOps}' settings and of the service's {@link ReadinessChecks}. */
export const OPS_SETTINGS = Symbol('OPS_SETTINGS');
export const READINESS_CHECKS = Symbol('READINESS_CHECKS');

/**
 * A service's ops port (/healthz, /readyz, /metrics on OPS_PORT; 0 turns it off) and the first step of a
 * graceful stop: on SIGTERM it reports unready at once, and keeps serving for `shutdownDelayMs`, before
 * Nest stops the service's listener and finishes what is in flight.
 */
@Injectable()
export class ServiceOps implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('ServiceOps');
  /** The service's checks, with the NATS probe's first; the gateway answers it on its public port too. */
  readonly readiness: Readiness;
  private probe?: NatsConnection;
  private server?: { close(): Promise<void> };

  constructor(
    @Inject(OPS_SETTINGS) private readonly settings: OpsSettings,
    @Inject(METRICS_REGISTRY) private readonly registry: Registry,
    @Inject(READINESS_CHECKS) service: ReadinessChecks,
  ) {
    const probe: ReadinessCheck[] = settings.natsProbe
      ? [
          {
            name: 'nats',
            check: async () => (this.probe ? this.probe.flush() : Promise.reject(new Error('not connected'))),
          },
        ]
      : [];
    this.readiness = new Readiness([...probe, ...service.checks]);
  }

  async onApplicationBootstrap(): Promise<void> {
    const { ops, natsProbe, service } = this.settings;
    if (ops.port === 0) return;
    if (natsProbe) this.probe = await connectNatsProbe(natsProbe, `${service}-ops`);
    const server = await startOpsServer({
      host: ops.host,
      port: ops.port,
      readiness: this.readiness,
      registry: this.registry,
    });
    this.server = server;
    this.logger.log(`ops port on http://${ops.host}:${server.port} (/healthz, /readyz, /metrics)`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.readiness.drain();
    const delayMs = this.settings.shutdownDelayMs ?? 0;
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.server?.close();
    await this.probe?.close();
    await flushTraces();
  }
}

/**
 * The ops port of one service, as providers to list in the service's own module (its readiness checks
 * inject the service's providers, which a module of their own could not see): the service's metrics
 * class on a registry labelled with its name, its readiness checks class, and {@link ServiceOps}.
 * Handlers inject the metrics class; the registry is METRICS_REGISTRY.
 */
export function opsProviders(
  settings: OpsSettings & { metrics: Type<unknown>; readiness: Type<ReadinessChecks> },
): Provider[] {
  const { metrics, readiness, ...ops } = settings;
  return [
    { provide: OPS_SETTINGS, useValue: ops },
    { provide: METRICS_REGISTRY, useValue: createRegistry(ops.service) },
    metrics,
    { provide: READINESS_CHECKS, useClass: readiness },
    ServiceOps,
  ];
}
