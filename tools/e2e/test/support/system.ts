import { createCatalogApp, readCatalogConfig } from '@appcat/catalog';
import { type AdminKeyCreated, type AdminKeyRef, formatUsd, parseUsd, Subject } from '@appcat/contracts';
import { type DevFacilitator, type LocalPaymentStack, startLocalPaymentStack } from '@appcat/facilitator';
import { createGatewayApp, readGatewayConfig } from '@appcat/gateway';
import type { LocalChain } from '@appcat/local-chain';
import { NatsRpcClient } from '@appcat/microservice';
import { applyMigrations, createPaymentsApp, readPaymentsConfig } from '@appcat/payments';
import type { SolanaLedger } from '@appcat/solana-ledger';
import { startStoreEmulator, type StoreEmulator } from '@appcat/store-emulator';
import {
  createTestDatabase,
  freePort,
  type ManagedProcess,
  startNatsServer,
  startRedisServer,
  type TestDatabase,
  testPool,
} from '@appcat/testing';
import type { INestMicroservice } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import type pg from 'pg';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: { status: number; message: string; data: unknown };
}

/**
 * The whole service in one process, every part real: a private nats-server and redis-server, a fresh
 * migrated Postgres database, the store emulator, `paymentsReplicas` payments instances, a catalog
 * and a gateway listening on a free port.
 */
export class System {
  private constructor(
    readonly nats: ManagedProcess,
    readonly redis: ManagedProcess,
    readonly database: TestDatabase,
    readonly db: pg.Pool,
    readonly emulator: StoreEmulator,
    readonly payments: INestMicroservice[],
    readonly catalog: INestMicroservice,
    readonly gateway: NestFastifyApplication,
    readonly baseUrl: string,
    readonly admin: NatsRpcClient,
  ) {}

  /**
   * @param options.natsMaxPayloadBytes the NATS server's message limit, when not its default 1 MiB.
   * @param options.x402 also start the local payment stack (one anvil per EVM network, each with test
   *   USDC at that network's USDC address, the local Solana ledger, and the dev facilitator settling on
   *   all) and point payments and the /topup page at it.
   */
  static async start(
    options: {
      paymentsReplicas?: number;
      gatewayReplicas?: number;
      x402?: boolean;
      /** Also Google Play's catalog and a gateway for it at an address of its own (`playBaseUrl`), on the same payments. */
      googlePlay?: boolean;
      env?: Record<string, string>;
      natsMaxPayloadBytes?: number;
    } = {},
  ): Promise<System> {
    const [nats, redis, database, emulator] = await Promise.all([
      startNatsServer(undefined, { maxPayloadBytes: options.natsMaxPayloadBytes }),
      startRedisServer(),
      createTestDatabase('e2e', applyMigrations),
      startStoreEmulator({ port: 0 }),
    ]);
    const stack = options.x402 ? await startLocalPaymentStack() : undefined;
    const gatewayPort = await freePort();
    const env = {
      ...stack?.paymentsEnv,
      PUBLIC_BASE_URL: `http://127.0.0.1:${gatewayPort}`,
      // The emulator does not throttle; Apple's limits (the catalog's defaults) would only slow the suite.
      // A suite about the rate budget sets its own.
      ITUNES_RATE_PER_MIN: '0',
      APPLE_WEB_RATE_PER_MIN: '0',
      APPLE_AMP_API_RATE_PER_MIN: '0',
      APPLE_CATALOGUE_RATE_PER_MIN: '0',
      // Bounds on healthy paths that a loaded machine must not reach (they had 2 s of upstream time).
      UPSTREAM_TIMEOUT_MS: '30000',
      NATS_REQUEST_TIMEOUT_MS: '30000',
      ...options.env,
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      DATABASE_URL: database.url,
      NATS_SHUTDOWN_GRACE_MS: '0',
      LEDGER_BLOCK_MS: '100',
      ITUNES_BASE_URL: emulator.url,
      APPLE_WEB_BASE_URL: emulator.url,
      APPLE_AMP_API_BASE_URL: emulator.url,
      PLAY_BASE_URL: emulator.url,
      PLAY_RATE_PER_MIN: '0',
      PORT: String(gatewayPort),
      OPS_PORT: '0',
    };
    const payments: INestMicroservice[] = [];
    for (let i = 0; i < (options.paymentsReplicas ?? 1); i++) {
      const app = await createPaymentsApp(readPaymentsConfig({ ...env, LEDGER_CONSUMER: `e2e-${i}` }), {
        logger: false,
      });
      await app.listen();
      payments.push(app);
    }
    const catalog = await createCatalogApp(readCatalogConfig(env), { logger: false });
    await catalog.listen();
    const gateway = await createGatewayApp(readGatewayConfig(env), { logger: false });
    await gateway.listen(gatewayPort, '127.0.0.1');
    const port = gatewayPort;
    // More gateway replicas: the same configuration (and public address) on ports of their own.
    const extraGateways: { app: NestFastifyApplication; url: string }[] = [];
    for (let i = 1; i < (options.gatewayReplicas ?? 1); i++) {
      const extraPort = await freePort();
      const app = await createGatewayApp(readGatewayConfig({ ...env, PORT: String(extraPort) }), { logger: false });
      await app.listen(extraPort, '127.0.0.1');
      extraGateways.push({ app, url: `http://127.0.0.1:${extraPort}` });
    }
    let play: System['play'];
    if (options.googlePlay) {
      const playPort = await freePort();
      const playEnv = {
        ...env,
        CATALOG_STORE: 'google-play',
        GATEWAY_STORE: 'google-play',
        PORT: String(playPort),
        PUBLIC_BASE_URL: `http://127.0.0.1:${playPort}`,
      };
      const playCatalog = await createCatalogApp(readCatalogConfig(playEnv), { logger: false });
      await playCatalog.listen();
      const playGateway = await createGatewayApp(readGatewayConfig(playEnv), { logger: false });
      await playGateway.listen(playPort, '127.0.0.1');
      play = { catalog: playCatalog, gateway: playGateway, baseUrl: `http://127.0.0.1:${playPort}` };
    }
    const admin = await NatsRpcClient.connect(
      { servers: [nats.url], requestTimeoutMs: 30_000, shutdownGraceMs: 0 },
      'e2e-admin',
    );
    const db = testPool(database.url, 2);
    const system = new System(
      nats,
      redis,
      database,
      db,
      emulator,
      payments,
      catalog,
      gateway,
      `http://127.0.0.1:${port}`,
      admin,
    );
    system.stack = stack;
    system.chain = stack?.chain('base');
    system.solana = stack?.solana;
    system.facilitator = stack?.facilitator;
    system.extraGateways = extraGateways;
    system.play = play;
    return system;
  }

  /** The local payment stack, with `options.x402`. */
  stack?: LocalPaymentStack;
  /** Base's local chain. */
  chain?: LocalChain;
  /** The local Solana ledger. */
  solana?: SolanaLedger;
  facilitator?: DevFacilitator;
  private extraGateways: { app: NestFastifyApplication; url: string }[] = [];
  /** Google Play's catalog and gateway, with `options.googlePlay`. */
  play?: { catalog: INestMicroservice; gateway: NestFastifyApplication; baseUrl: string };

  /** Google Play's address, with `options.googlePlay`. */
  get playBaseUrl(): string {
    if (!this.play) throw new Error('started without googlePlay');
    return this.play.baseUrl;
  }

  /** The x402 challenge an unpaid request to `path` gets (a 402 with `payment-required`), decoded. */
  async challenge(path: string, init: RequestInit = {}): Promise<PaymentRequired> {
    const res = await fetch(this.baseUrl + path, init);
    if (res.status !== 402) throw new Error(`expected a 402 challenge from ${path}, got ${res.status}`);
    return decodePaymentRequiredHeader(res.headers.get('payment-required')!);
  }

  /** `path` sent with `payment-signature: signature` (and `init`'s headers); the status, headers and envelope. */
  async paid(path: string, signature: string, init: RequestInit = {}) {
    const res = await fetch(this.baseUrl + path, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), 'payment-signature': signature },
    });
    return {
      status: res.status,
      headers: res.headers,
      body: (await res.json()) as { status: number; message: string; data: unknown },
    };
  }

  /** Every gateway replica's address, the first being `baseUrl`. */
  get gatewayUrls(): string[] {
    return [this.baseUrl, ...this.extraGateways.map((g) => g.url)];
  }

  async stop(): Promise<void> {
    for (const extra of this.extraGateways) await extra.app.close();
    await this.play?.gateway.close();
    await this.play?.catalog.close();
    await this.gateway.close();
    await this.catalog.close();
    for (const app of this.payments) await app.close();
    await this.admin.close();
    await this.db.end();
    await this.emulator.close();
    await this.stack?.stop();
    await Promise.all([this.nats.stop(), this.redis.stop()]);
    await this.database.drop();
  }

  async get(path: string, key?: string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    const res = await fetch(this.baseUrl + path, {
      headers: { ...headers, ...(key ? { authorization: `Bearer ${key}` } : {}) },
    });
    return {
      status: res.status,
      headers: Object.fromEntries(res.headers),
      body: (await res.json()) as HttpAnswer['body'],
    };
  }

  /** A new key holding `usd` (e.g. "0.3"), issued through the admin subject as the admin tool does. */
  async createKey(usd: string): Promise<AdminKeyCreated> {
    const credit = parseUsd(usd);
    if (credit === null) throw new Error(`bad amount ${usd}`);
    return this.admin.request<AdminKeyCreated>(
      Subject.AdminKeysCreate,
      { credit: credit.toString() },
      { service: 'payments' },
    );
  }

  async revoke(ref: string): Promise<void> {
    await this.admin.request(Subject.AdminKeysRevoke, { ref } satisfies AdminKeyRef, { service: 'payments' });
  }

  /** The balance as the public balance route reports it. */
  async balance(key: string): Promise<string> {
    const answer = await this.get('/api/credits/balance', key);
    if (answer.status !== 200) throw new Error(`balance answered ${answer.status} ${answer.body.message}`);
    return (answer.body.data as { balance: string }).balance;
  }

  /**
   * The balance once it reads `expected`, or the last one read after `withinMs`: a failed call's hold
   * is released as the answer goes out, so a read right after may still see it for a moment. The wait
   * stays far below CREDIT_HOLD_MS, so only the release, never the hold lapsing, can pass it.
   */
  async balanceSoon(key: string, expected: string, withinMs = 2_000): Promise<string> {
    const deadline = Date.now() + withinMs;
    for (;;) {
      const balance = await this.balance(key);
      if (balance === expected || Date.now() > deadline) return balance;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Postgres's view of a key once the ledger has flushed: topped up, spent, debit rows. */
  async ledger(keyId: string): Promise<{ toppedUp: bigint; spent: bigint; debits: number }> {
    const { rows } = await this.db.query<{ topped_up_micros: string; spent_micros: string; debits: string }>(
      `SELECT k.topped_up_micros, k.spent_micros, (SELECT count(*) FROM credit_debits d WHERE d.api_key_id = k.id) AS debits
         FROM api_keys k WHERE k.id = $1`,
      [keyId],
    );
    return {
      toppedUp: BigInt(rows[0].topped_up_micros),
      spent: BigInt(rows[0].spent_micros),
      debits: Number(rows[0].debits),
    };
  }

  /** Waits until Postgres holds `spent` for the key (the write-behind lags by about a second at most). */
  async waitForSpent(keyId: string, spent: bigint, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const ledger = await this.ledger(keyId);
      if (ledger.spent === spent) return;
      if (Date.now() > deadline)
        throw new Error(`Postgres spent ${formatUsd(ledger.spent)} for ${keyId}, expected ${formatUsd(spent)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
