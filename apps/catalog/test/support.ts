import { type CatalogPeekReply, type CatalogQuery, type CatalogReply, type CatalogRequest, isCatalogUnavailable, Subject, type WireError } from '@appcat/contracts';
import { NatsRpcClient, RpcCallError, WireException } from '@appcat/microservice';
import { startStoreEmulator, type StoreEmulator } from '@appcat/store-emulator';
import { type ManagedProcess, startNatsServer, startRedisServer } from '@appcat/testing';
import type { INestMicroservice } from '@nestjs/common';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { createCatalogApp } from '../src/catalog-app.js';
import { CatalogController } from '../src/catalog.controller.js';
import { readCatalogConfig, type CatalogConfig } from '../src/config.js';
import type { ListData } from '../src/store/store-adapter.js';

/** Catalog settings pointing every upstream at one emulator (or any local server). */
export function configFor(upstreamUrl: string, env: Record<string, string> = {}): CatalogConfig {
  return readCatalogConfig({
    ITUNES_BASE_URL: upstreamUrl,
    APPLE_WEB_BASE_URL: upstreamUrl,
    APPLE_AMP_API_BASE_URL: upstreamUrl,
    NATS_SHUTDOWN_GRACE_MS: '0',
    OPS_PORT: '0',
    ...env,
  });
}

/** The typed failure a promise rejects with; fails the test if it resolves or throws anything else. */
export async function wireErrorOf(promise: Promise<unknown>): Promise<WireError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof WireException) return error.getError() as WireError;
    throw error;
  }
  throw new Error('expected a WireException, got a result');
}

/** Upstream requests the emulator serves while `work` runs. */
export async function requestsDuring(emulator: StoreEmulator, work: () => Promise<unknown>): Promise<number> {
  const before = emulator.requestCount();
  await work();
  return emulator.requestCount() - before;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A failed request rejects with the error as the catalog sent it, `{code, message}`, not the client's wrapper. */
async function wireErrorsAsSent<T>(request: Promise<T>): Promise<T> {
  try {
    return await request;
  } catch (error) {
    if (error instanceof RpcCallError) throw { code: error.code, message: error.message } satisfies WireError;
    throw error;
  }
}

/** A catalog reply with its JSON data decoded, as the tests read it. */
export type DecodedReply = Omit<CatalogReply, 'dataJson'> & { data: unknown };

/** Decodes a reply's `dataJson`; what decodes must be exactly what the catalog meant to send. */
export function decoded(reply: CatalogReply): DecodedReply {
  const { dataJson, ...rest } = reply;
  return { ...rest, data: JSON.parse(dataJson) as unknown };
}

export const listOf = (reply: DecodedReply) => reply.data as ListData<Record<string, unknown>>;

/**
 * A private Redis, NATS and store emulator, and `replicas` catalog apps sharing them, each in its
 * own Nest app (its own Redis connections, in-flight map and token memory), as separate processes
 * would be.
 */
export class CatalogSystem {
  private constructor(
    readonly redisServer: ManagedProcess,
    readonly nats: ManagedProcess,
    readonly emulator: StoreEmulator,
    readonly config: CatalogConfig,
    readonly replicas: INestMicroservice[],
    /** The client the gateway uses (it reads the catalog's JSON-text replies). */
    readonly client: NatsRpcClient,
    /** A plain connection to the same Redis, to look inside or to play a dead replica. */
    readonly redis: Redis,
  ) {}

  /** @param replicaEnv settings of one replica only (its egress id, say), over `env`. */
  static async start(options: { replicas?: number; env?: Record<string, string>; replicaEnv?: (replica: number) => Record<string, string> } = {}): Promise<CatalogSystem> {
    const [redisServer, nats, emulator] = await Promise.all([startRedisServer(), startNatsServer(), startStoreEmulator()]);
    const baseEnv: Record<string, string> = {
      NATS_URL: nats.url,
      REDIS_URL: redisServer.url,
      CATALOG_REDIS_PREFIX: `test-${randomUUID().slice(0, 8)}:`,
      // Generous limits unless a test is about them: the emulator does not throttle by default.
      ITUNES_RATE_PER_MIN: '0',
      APPLE_WEB_RATE_PER_MIN: '0',
      APPLE_AMP_API_RATE_PER_MIN: '0',
      UPSTREAM_TIMEOUT_MS: '2000',
      ...options.env,
    };
    const config = configFor(emulator.url, baseEnv);
    const replicas: INestMicroservice[] = [];
    for (let i = 0; i < (options.replicas ?? 1); i++) {
      const own = options.replicaEnv?.(i);
      const app = await createCatalogApp(own ? configFor(emulator.url, { ...baseEnv, ...own }) : config, { logger: ['error'] });
      await app.listen();
      replicas.push(app);
    }
    const client = await NatsRpcClient.connect({ servers: [nats.url], requestTimeoutMs: 30_000, shutdownGraceMs: 0 }, 'catalog-test');
    const redis = new Redis(redisServer.url, { protocol: 2, disconnectTimeout: 200 });
    redis.on('error', () => undefined);
    return new CatalogSystem(redisServer, nats, emulator, config, replicas, client, redis);
  }

  /** One catalog.fetch over NATS, answered by whichever replica the queue group picks. */
  async fetch(query: CatalogQuery): Promise<DecodedReply> {
    return decoded(await wireErrorsAsSent(this.client.request<CatalogReply>(Subject.CatalogFetch, { query, requestId: randomUUID() } satisfies CatalogRequest, { service: 'catalog' })));
  }

  /** One catalog.peek over NATS: the cached answer, or null (a miss whose upstream is available, or unknown). */
  async peek(query: CatalogQuery): Promise<DecodedReply | null> {
    const reply = await this.peekReply(query);
    if (isCatalogUnavailable(reply)) throw new Error(`peek reported the upstream unavailable: ${reply.unavailable.message}`);
    return reply === null ? null : decoded(reply);
  }

  /** One catalog.peek over NATS, its reply as sent (a miss may report the upstream unavailable). */
  async peekReply(query: CatalogQuery): Promise<CatalogPeekReply> {
    return wireErrorsAsSent(this.client.request<CatalogPeekReply>(Subject.CatalogPeek, { query, requestId: randomUUID() } satisfies CatalogRequest, { service: 'catalog' }));
  }

  /** The same request handled by one given replica (its controller called directly). */
  async via(replica: number, query: CatalogQuery): Promise<DecodedReply> {
    return decoded((await this.replicas[replica].get(CatalogController).fetch({ query, requestId: randomUUID() })).toValue());
  }

  /** Forgets everything shared (cache, limiter buckets, breakers) and every injected fault. */
  async reset(): Promise<void> {
    await this.redis.flushdb();
    this.emulator.clearFaults();
    this.emulator.setRequestHook();
    this.emulator.resetStats();
  }

  async stop(): Promise<void> {
    await this.client?.close();
    await Promise.all(this.replicas.map((r) => r.close()));
    this.redis.disconnect();
    await this.emulator.close();
    await Promise.all([this.nats.stop(), this.redisServer.stop()]);
  }
}
