import { type AdminKeyCreated, parseUsd, Subject, X402_EVM_NETWORKS } from '@appcat/contracts';
import {
  type DevFacilitator,
  type LocalPaymentStack,
  startDevFacilitator,
  startLocalPaymentStack,
} from '@appcat/facilitator';
import type { LocalChain } from '@appcat/local-chain';
import type { SolanaLedger } from '@appcat/solana-ledger';
import { NatsRpcClient } from '@appcat/microservice';
import { applyMigrations } from '@appcat/payments';
import {
  createTestDatabase,
  freePort,
  type ManagedProcess,
  startNatsServer,
  startRedisServer,
  type TestDatabase,
} from '@appcat/testing';
import { CATALOG_RATE_LIMITS_LIFTED } from '@appcat/store-emulator';
import { FacilitatorTimer } from './facilitator-timer.js';
import { deployedServiceEnvironment, deployedServiceNodeArgs, NodeProcess, repoPath } from './processes.js';

export interface Service {
  process: NodeProcess;
  /** HTTP base URL for those that listen (gateway, floors). */
  url?: string;
  /** The ops port's base URL (/metrics, /readyz) of our services. */
  opsUrl?: string;
}

/** Starts the built store emulator as a process of its own on a free port. */
export async function startEmulator(): Promise<{ process: NodeProcess; url: string }> {
  const emulator = NodeProcess.start('store emulator', repoPath('tools/store-emulator/dist/main.js'), {
    STORE_EMULATOR_PORT: '0',
  });
  const [, url] = await emulator.waitForLine(/listening on (http:\/\/\S+)/);
  return { process: emulator, url };
}

/** A built service (apps/<kind>/dist/main.js) with an ops port, started as deployed (node options and environment, plus `nodeArgs`) and ready. */
export async function startService(
  name: string,
  kind: 'gateway' | 'payments' | 'catalog',
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<Service> {
  const opsPort = await freePort();
  const port = kind === 'gateway' ? await freePort() : undefined;
  const process = NodeProcess.start(
    name,
    repoPath(`apps/${kind}/dist/main.js`),
    {
      ...deployedServiceEnvironment(),
      ...env,
      OPS_PORT: String(opsPort),
      ...(port ? { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } : {}),
    },
    [...deployedServiceNodeArgs(), ...nodeArgs],
  );
  const opsUrl = `http://127.0.0.1:${opsPort}`;
  await process.waitReady(`${opsUrl}/readyz`);
  return { process, url: port ? `http://127.0.0.1:${port}` : undefined, opsUrl };
}

/** A bench floor process (tools/bench/dist/floors/<script>.js) that prints a ready line. */
export async function startFloor(
  name: string,
  script: string,
  env: Record<string, string>,
  ready: RegExp,
): Promise<Service> {
  const port = await freePort();
  const process = NodeProcess.start(name, repoPath(`tools/bench/dist/floors/${script}.js`), {
    ...env,
    PORT: String(port),
  });
  await process.waitForLine(ready);
  return { process, url: `http://127.0.0.1:${port}` };
}

/**
 * Our system as production runs it, one replica each of gateway, payments and catalog as built dist
 * processes, on private NATS and Redis, a fresh Postgres database and the store emulator; with x402,
 * also one anvil per EVM network, the local Solana ledger and the dev facilitator (in this process) behind a timing proxy;
 * without, a dev facilitator alone, whose /supported payments reads before it is ready.
 */
export class Stack {
  readonly services = new Map<string, Service>();
  /** With x402: the local chains, the Solana ledger and the dev facilitator. */
  payments?: LocalPaymentStack;
  /** Base's local chain, with x402. */
  chain?: LocalChain;
  /** The local Solana ledger, with x402. */
  solana?: SolanaLedger;
  facilitator?: DevFacilitator;
  facilitatorTimer?: FacilitatorTimer;
  admin!: NatsRpcClient;
  private readonly others: NodeProcess[] = [];

  private constructor(
    readonly nats: ManagedProcess,
    readonly redis: ManagedProcess,
    readonly database: TestDatabase,
    readonly emulatorUrl: string,
    /** Settings added to every service's environment (e.g. REDIS_CLUSTER_NODES). */
    private readonly extraEnv: Record<string, string> = {},
  ) {}

  static async start(options: {
    x402: boolean;
    nodeArgs?: (kind: string) => string[];
    env?: Record<string, string>;
  }): Promise<Stack> {
    const [nats, redis, database, emulator] = await Promise.all([
      startNatsServer(),
      startRedisServer(),
      createTestDatabase('bench', applyMigrations),
      startEmulator(),
    ]);
    const stack = new Stack(nats, redis, database, emulator.url, options.env);
    stack.others.push(emulator.process);
    try {
      if (options.x402) {
        stack.payments = await startLocalPaymentStack();
        stack.chain = stack.payments.chain('base');
        stack.solana = stack.payments.solana;
        stack.facilitator = stack.payments.facilitator;
        stack.facilitatorTimer = await FacilitatorTimer.start(stack.facilitator.url);
      } else {
        // No payment is made: the facilitator's /supported needs no chain behind it.
        stack.facilitator = await startDevFacilitator({
          rpcUrl: 'http://127.0.0.1:9',
          port: 0,
          networks: X402_EVM_NETWORKS.map((n) => n.network),
          solana: { rpcUrl: 'http://127.0.0.1:9' },
        });
      }
      const env = stack.env();
      const args = options.nodeArgs ?? (() => []);
      stack.services.set('payments', await startService('payments', 'payments', env, args('payments')));
      stack.services.set('catalog', await startService('catalog', 'catalog', env, args('catalog')));
      stack.services.set('gateway', await startService('gateway', 'gateway', env, args('gateway')));
      stack.admin = await NatsRpcClient.connect(
        { servers: [nats.url], requestTimeoutMs: 10_000, shutdownGraceMs: 0 },
        'bench-admin',
      );
      return stack;
    } catch (error) {
      await stack.stop();
      throw error;
    }
  }

  /** What every service of ours is started with. */
  env(): Record<string, string> {
    return {
      NATS_URL: this.nats.url,
      REDIS_URL: this.redis.url,
      DATABASE_URL: this.database.url,
      ITUNES_BASE_URL: this.emulatorUrl,
      APPLE_WEB_BASE_URL: this.emulatorUrl,
      APPLE_AMP_API_BASE_URL: this.emulatorUrl,
      PLAY_BASE_URL: this.emulatorUrl,
      ...CATALOG_RATE_LIMITS_LIFTED,
      ...this.payments?.paymentsEnv,
      X402_FACILITATOR_URL: (this.facilitatorTimer ?? this.facilitator)?.url ?? '',
      ...this.extraEnv,
    };
  }

  get gatewayUrl(): string {
    return this.services.get('gateway')!.url!;
  }

  /** A new API key holding `usd`, issued over the admin subject. */
  async createKey(usd: string): Promise<AdminKeyCreated> {
    return this.admin.request<AdminKeyCreated>(
      Subject.AdminKeysCreate,
      { credit: parseUsd(usd)!.toString() },
      { service: 'payments' },
    );
  }

  /** Starts another process that stops with the stack. */
  adopt(service: Service, name: string): Service {
    this.services.set(name, service);
    return service;
  }

  async stop(): Promise<void> {
    await this.admin?.close().catch(() => undefined);
    await Promise.all([...this.services.values()].map((s) => s.process.stop()));
    await Promise.all(this.others.map((p) => p.stop()));
    await this.facilitatorTimer?.stop();
    if (this.payments) await this.payments.stop();
    else await this.facilitator?.stop();
    await Promise.all([this.nats.stop(), this.redis.stop()]);
    await this.database.drop().catch(() => undefined);
  }
}
