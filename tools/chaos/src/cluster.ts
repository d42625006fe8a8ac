import { type AdminKeyCreated, type AdminReconcileReply, Subject } from '@appcat/contracts';
import { type DevFacilitator, type LocalPaymentStack, startLocalPaymentStack } from '@appcat/facilitator';
import type { SolanaLedger } from '@appcat/solana-ledger';
import { NatsRpcClient } from '@appcat/microservice';
import { applyMigrations } from '@appcat/payments';
import { CATALOG_RATE_LIMITS_LIFTED, startStoreEmulator, type StoreEmulator } from '@appcat/store-emulator';
import {
  freePort,
  type ManagedProcess,
  NatsClusterHarness,
  PostgresCluster,
  RedisClusterHarness,
  ServiceProcess,
  startNatsServer,
  startRedisServer,
  waitReady,
} from '@appcat/testing';
import pg from 'pg';

export type ServiceName = 'gateway' | 'payments' | 'catalog';

/** How long payments waits for the facilitator here (X402_FACILITATOR_TIMEOUT_MS): as long as a held facilitator keeps an x402 call hanging. */
export const FACILITATOR_TIMEOUT_MS = 120_000;

/** One replica: a built service process, restartable with the same settings. */
export class Replica {
  process: ServiceProcess;

  constructor(
    readonly service: ServiceName,
    readonly index: number,
    private readonly env: Record<string, string>,
    /** Where it answers /readyz: the gateway's public port, the others' ops port. */
    readonly readyUrl: string,
  ) {
    this.process = this.spawn();
  }

  get name(): string {
    return `${this.service}-${this.index}`;
  }

  private spawn(): ServiceProcess {
    return new ServiceProcess(this.name, `apps/${this.service}/dist/main.js`, this.env);
  }

  /** kill -9, as a crash or an OOM kill. */
  async crash(): Promise<void> {
    await this.process.kill();
  }

  async restart(): Promise<void> {
    if (this.process.running) await this.process.kill();
    this.process = this.spawn();
    await waitReady(this.readyUrl, 60_000);
  }
}

export interface ClusterOptions {
  /** Replicas of each service (2 in the suite). */
  replicas: number;
  /**
   * A Redis Cluster (3 primaries, one replica each) and 3 routed nats-servers instead of one Redis and one
   * NATS server: payments and the catalog use the cluster (REDIS_CLUSTER_NODES), every service every NATS server.
   */
  clusters?: boolean;
  /** Extra environment for every service. */
  env?: Record<string, string>;
}

/** Where Redis and NATS run: one server of each (each restartable on its port), or a cluster of each. */
type Backbone =
  | { kind: 'single'; nats: ManagedProcess; redis: ManagedProcess }
  | { kind: 'clusters'; nats: NatsClusterHarness; redis: RedisClusterHarness };

/**
 * Everything the service needs, private to one run: a PostgreSQL cluster, NATS and Redis (one server of
 * each, or a NATS cluster and a Redis Cluster), one anvil per EVM network with test USDC and the dev
 * facilitator settling on all, the store emulator, and `replicas` built processes of gateway, payments
 * and catalog. The gateways stand behind no load balancer: the traffic generator spreads calls over them
 * as one would.
 */
export class ChaosCluster {
  readonly replicas: Replica[] = [];
  gatewayUrls: string[] = [];
  /** The address every gateway advertises (x402 resource URLs): the first gateway, as a load balancer's. */
  publicBaseUrl = '';
  databaseUrl = '';
  db!: pg.Pool;

  private constructor(
    readonly postgres: PostgresCluster,
    private backbone: Backbone,
    readonly emulator: StoreEmulator,
    /** One anvil per EVM network, the Solana ledger and the dev facilitator settling on all of them. */
    readonly payments: LocalPaymentStack,
  ) {
    this.facilitator = payments.facilitator;
    this.solana = payments.solana!;
  }

  readonly facilitator: DevFacilitator;
  readonly solana: SolanaLedger;

  static async start(options: ClusterOptions): Promise<ChaosCluster> {
    const results = await Promise.allSettled([
      PostgresCluster.start(),
      startBackbone(options.clusters === true),
      startStoreEmulator({ port: 0 }),
      startLocalPaymentStack(),
    ]);
    const [postgres, backbone, emulator, payments] = results.map((result) =>
      result.status === 'fulfilled' ? result.value : undefined,
    ) as [PostgresCluster?, Backbone?, StoreEmulator?, LocalPaymentStack?];
    const failed = results.find((result) => result.status === 'rejected');
    if (failed || !postgres || !backbone || !emulator || !payments) {
      // Stop what did start: a server left running would keep this process (or jest) alive.
      await Promise.allSettled([
        postgres?.destroy(),
        backbone && stopBackbone(backbone),
        emulator?.close(),
        payments?.stop(),
      ]);
      throw failed?.reason;
    }
    const cluster = new ChaosCluster(postgres, backbone, emulator, payments);
    try {
      await cluster.startReplicas(options);
    } catch (error) {
      // Say why (each replica's last lines) and leave no process behind.
      const tail = cluster.logTail();
      await cluster.stop();
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${tail}`, { cause: error });
    }
    return cluster;
  }

  private async startReplicas(options: ClusterOptions): Promise<void> {
    this.databaseUrl = `${this.postgres.url}/appcat`;
    await applyMigrations(this.databaseUrl);
    this.db = new pg.Pool({ connectionString: this.databaseUrl, max: 4 });
    this.db.on('error', () => undefined);

    const gatewayPorts = await Promise.all(Array.from({ length: options.replicas }, () => freePort()));
    this.publicBaseUrl = `http://127.0.0.1:${gatewayPorts[0]}`;
    const backbone = this.backbone;
    const shared = {
      // On clusters: every NATS server (a client whose server dies moves to another), and the Redis
      // Cluster's nodes for payments and the catalog (the gateway uses no Redis).
      ...(backbone.kind === 'single'
        ? { NATS_URL: backbone.nats.url, REDIS_URL: backbone.redis.url }
        : { NATS_URL: backbone.nats.url, REDIS_CLUSTER_NODES: backbone.redis.nodesSetting }),
      DATABASE_URL: this.databaseUrl,
      ...this.payments.paymentsEnv,
      PUBLIC_BASE_URL: this.publicBaseUrl,
      ITUNES_BASE_URL: this.emulator.url,
      APPLE_WEB_BASE_URL: this.emulator.url,
      APPLE_AMP_API_BASE_URL: this.emulator.url,
      ...CATALOG_RATE_LIMITS_LIFTED,
      UPSTREAM_TIMEOUT_MS: '2000',
      NATS_REQUEST_TIMEOUT_MS: '5000',
      // A held facilitator keeps x402 calls hanging this long (the slow-facilitator measurement counts
      // credit calls meanwhile); the gateway waits longer than payments, as the README asks.
      X402_FACILITATOR_TIMEOUT_MS: String(FACILITATOR_TIMEOUT_MS),
      X402_PAY_TIMEOUT_MS: String(FACILITATOR_TIMEOUT_MS + 30_000),
      LEDGER_BLOCK_MS: '200',
      LEDGER_CLAIM_IDLE_MS: '3000',
      NATS_SHUTDOWN_GRACE_MS: '500',
      LOG_LEVEL: 'warn',
      ...options.env,
    };
    for (let i = 0; i < options.replicas; i++) {
      const [paymentsOps, catalogOps, gatewayOps] = await Promise.all([freePort(), freePort(), freePort()]);
      this.replicas.push(
        // A fixed consumer name per slot: a restarted replica re-reads its own unacknowledged debits at once.
        new Replica(
          'payments',
          i,
          { ...shared, OPS_PORT: String(paymentsOps), LEDGER_CONSUMER: `chaos-payments-${i}` },
          `http://127.0.0.1:${paymentsOps}/readyz`,
        ),
        new Replica('catalog', i, { ...shared, OPS_PORT: String(catalogOps) }, `http://127.0.0.1:${catalogOps}/readyz`),
        new Replica(
          'gateway',
          i,
          { ...shared, PORT: String(gatewayPorts[i]), OPS_PORT: String(gatewayOps) },
          `http://127.0.0.1:${gatewayPorts[i]}/readyz`,
        ),
      );
      this.gatewayUrls.push(`http://127.0.0.1:${gatewayPorts[i]}`);
    }
    // A guard against a replica that never starts: six processes starting at once on a busy 2-core
    // machine took over a minute.
    await Promise.all(this.replicas.map((replica) => waitReady(replica.readyUrl, 180_000)));
  }

  replica(service: ServiceName, index = 0): Replica {
    const found = this.replicas.find((r) => r.service === service && r.index === index);
    if (!found) throw new Error(`no ${service}-${index}`);
    return found;
  }

  /** kill -9 Redis and start an empty one on the same port: every balance, the ledger stream and the locks are lost. */
  async loseRedis(): Promise<void> {
    const backbone = this.single();
    const port = backbone.redis.port;
    await backbone.redis.kill();
    this.backbone = { ...backbone, redis: await startRedisServer(port) };
  }

  async restartNats(): Promise<void> {
    const backbone = this.single();
    const port = backbone.nats.port;
    await backbone.nats.kill();
    this.backbone = { ...backbone, nats: await startNatsServer(port) };
  }

  /** The Redis Cluster and the NATS cluster of a run with `clusters`. */
  get clusters(): { redis: RedisClusterHarness; nats: NatsClusterHarness } {
    if (this.backbone.kind !== 'clusters') throw new Error('this run has one Redis and one NATS server, not clusters');
    return { redis: this.backbone.redis, nats: this.backbone.nats };
  }

  private single(): Extract<Backbone, { kind: 'single' }> {
    if (this.backbone.kind !== 'single')
      throw new Error('this run has a Redis Cluster and a NATS cluster, not one server of each');
    return this.backbone;
  }

  /** Admin calls over NATS, as the admin CLI makes them; a connection per call survives NATS restarts. */
  async admin<T>(subject: string, data: unknown, timeoutMs = 10_000): Promise<T> {
    const servers = this.backbone.kind === 'single' ? [this.backbone.nats.url] : this.backbone.nats.urls;
    const client = await NatsRpcClient.connect(
      { servers, requestTimeoutMs: timeoutMs, shutdownGraceMs: 0 },
      'chaos-admin',
      { failFast: true },
    );
    try {
      return await client.request<T>(subject, data, { service: 'payments', timeoutMs });
    } finally {
      await client.close().catch(() => undefined);
    }
  }

  createKey(creditMicros: bigint): Promise<AdminKeyCreated> {
    return this.admin<AdminKeyCreated>(Subject.AdminKeysCreate, { credit: creditMicros.toString() });
  }

  reconcile(waitMs: number): Promise<AdminReconcileReply> {
    return this.admin<AdminReconcileReply>(Subject.AdminReconcile, { waitMs }, waitMs + 30_000);
  }

  /** Last lines each replica printed (for a failure report). */
  logTail(lines = 20): string {
    return this.replicas
      .map((r) => `--- ${r.name}\n${r.process.output.join('').split('\n').slice(-lines).join('\n')}`)
      .join('\n');
  }

  /** Stops everything; every step runs whatever the one before did, so no server is left running. */
  async stop(): Promise<void> {
    await Promise.allSettled(this.replicas.map((r) => r.process.kill()));
    await this.db?.end().catch(() => undefined);
    const results = await Promise.allSettled([
      this.emulator.close(),
      this.payments.stop(),
      stopBackbone(this.backbone),
      this.postgres.destroy(),
    ]);
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

async function startBackbone(clusters: boolean): Promise<Backbone> {
  const started = clusters
    ? await Promise.allSettled([NatsClusterHarness.start(3), RedisClusterHarness.start()])
    : await Promise.allSettled([startNatsServer(), startRedisServer()]);
  const [nats, redis] = started.map((result) => (result.status === 'fulfilled' ? result.value : undefined));
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    await Promise.allSettled([nats?.stop(), redis?.stop()]);
    throw failed.reason;
  }
  return clusters
    ? { kind: 'clusters', nats: nats as NatsClusterHarness, redis: redis as RedisClusterHarness }
    : { kind: 'single', nats: nats as ManagedProcess, redis: redis as ManagedProcess };
}

async function stopBackbone(backbone: Backbone): Promise<void> {
  await Promise.all([backbone.nats.stop(), backbone.redis.stop()]);
}
