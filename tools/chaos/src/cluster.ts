import { type AdminKeyCreated, type AdminReconcileReply, Subject } from '@appcat/contracts';
import { type DevFacilitator, type LocalPaymentStack, startLocalPaymentStack } from '@appcat/facilitator';
import type { SolanaLedger } from '@appcat/solana-ledger';
import { NatsRpcClient } from '@appcat/microservice';
import { applyMigrations } from '@appcat/payments';
import { startStoreEmulator, type StoreEmulator } from '@appcat/store-emulator';
import { freePort, type ManagedProcess, PostgresCluster, ServiceProcess, startNatsServer, startRedisServer, waitReady } from '@appcat/testing';
import pg from 'pg';

export type ServiceName = 'gateway' | 'payments' | 'catalog';

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
  /** Extra environment for every service. */
  env?: Record<string, string>;
}

/**
 * Everything the service needs, private to one run: a PostgreSQL cluster, nats-server and redis-server
 * (each restartable on its port), one anvil per EVM network with test USDC and the dev facilitator settling on all, the store emulator, and
 * `replicas` built processes of gateway, payments and catalog. The gateways stand behind no load
 * balancer: the traffic generator spreads calls over them as one would.
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
    public nats: ManagedProcess,
    public redis: ManagedProcess,
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
    const [postgres, nats, redis, emulator, payments] = await Promise.all([
      PostgresCluster.start(),
      startNatsServer(),
      startRedisServer(),
      startStoreEmulator({ port: 0 }),
      startLocalPaymentStack(),
    ]);
    const cluster = new ChaosCluster(postgres, nats, redis, emulator, payments);
    cluster.databaseUrl = `${postgres.url}/appcat`;
    await applyMigrations(cluster.databaseUrl);
    cluster.db = new pg.Pool({ connectionString: cluster.databaseUrl, max: 4 });
    cluster.db.on('error', () => undefined);

    const gatewayPorts = await Promise.all(Array.from({ length: options.replicas }, () => freePort()));
    cluster.publicBaseUrl = `http://127.0.0.1:${gatewayPorts[0]}`;
    const shared = {
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      DATABASE_URL: cluster.databaseUrl,
      ...payments.paymentsEnv,
      PUBLIC_BASE_URL: cluster.publicBaseUrl,
      ITUNES_BASE_URL: emulator.url,
      APPLE_WEB_BASE_URL: emulator.url,
      APPLE_AMP_API_BASE_URL: emulator.url,
      ITUNES_RATE_PER_MIN: '0',
      APPLE_WEB_RATE_PER_MIN: '0',
      APPLE_AMP_API_RATE_PER_MIN: '0',
      UPSTREAM_TIMEOUT_MS: '2000',
      NATS_REQUEST_TIMEOUT_MS: '5000',
      LEDGER_BLOCK_MS: '200',
      LEDGER_CLAIM_IDLE_MS: '3000',
      NATS_SHUTDOWN_GRACE_MS: '500',
      LOG_LEVEL: 'warn',
      ...options.env,
    };
    for (let i = 0; i < options.replicas; i++) {
      const [paymentsOps, catalogOps, gatewayOps] = await Promise.all([freePort(), freePort(), freePort()]);
      cluster.replicas.push(
        // A fixed consumer name per slot: a restarted replica re-reads its own unacknowledged debits at once.
        new Replica('payments', i, { ...shared, OPS_PORT: String(paymentsOps), LEDGER_CONSUMER: `chaos-payments-${i}` }, `http://127.0.0.1:${paymentsOps}/readyz`),
        new Replica('catalog', i, { ...shared, OPS_PORT: String(catalogOps) }, `http://127.0.0.1:${catalogOps}/readyz`),
        new Replica('gateway', i, { ...shared, PORT: String(gatewayPorts[i]), OPS_PORT: String(gatewayOps) }, `http://127.0.0.1:${gatewayPorts[i]}/readyz`),
      );
      cluster.gatewayUrls.push(`http://127.0.0.1:${gatewayPorts[i]}`);
    }
    try {
      // A guard against a replica that never starts: six processes starting at once on a busy 2-core
      // machine took over a minute.
      await Promise.all(cluster.replicas.map((replica) => waitReady(replica.readyUrl, 180_000)));
    } catch (error) {
      // Say why (each replica's last lines) and leave no process behind.
      const tail = cluster.logTail();
      await cluster.stop();
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${tail}`, { cause: error });
    }
    return cluster;
  }

  replica(service: ServiceName, index = 0): Replica {
    const found = this.replicas.find((r) => r.service === service && r.index === index);
    if (!found) throw new Error(`no ${service}-${index}`);
    return found;
  }

  /** kill -9 Redis and start an empty one on the same port: every balance, the ledger stream and the locks are lost. */
  async loseRedis(): Promise<void> {
    const port = this.redis.port;
    await this.redis.kill();
    this.redis = await startRedisServer(port);
  }

  async restartNats(): Promise<void> {
    const port = this.nats.port;
    await this.nats.kill();
    this.nats = await startNatsServer(port);
  }

  /** Admin calls over NATS, as the admin CLI makes them; a connection per call survives NATS restarts. */
  async admin<T>(subject: string, data: unknown, timeoutMs = 10_000): Promise<T> {
    const client = await NatsRpcClient.connect({ servers: [this.nats.url], requestTimeoutMs: timeoutMs, shutdownGraceMs: 0 }, 'chaos-admin', { failFast: true });
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
    return this.replicas.map((r) => `--- ${r.name}\n${r.process.output.join('').split('\n').slice(-lines).join('\n')}`).join('\n');
  }

  async stop(): Promise<void> {
    await Promise.all(this.replicas.map((r) => r.process.kill()));
    await this.db.end().catch(() => undefined);
    await this.emulator.close();
    await this.payments.stop();
    await Promise.all([this.nats.stop(), this.redis.stop()]);
    await this.postgres.destroy();
  }
}
