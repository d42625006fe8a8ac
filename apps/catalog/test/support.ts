import {
  CATALOG_SUBJECTS,
  type CatalogPeekReply,
  type CatalogQuery,
  type CatalogReply,
  type CatalogRequest,
  isCatalogUnavailable,
  type WireError,
} from '@appcat/contracts';
import { NatsRpcClient, RpcCallError, WireException } from '@appcat/microservice';
import { CatalogMetrics } from '@appcat/ops';
import { jest } from '@jest/globals';
import {
  type Endpoint,
  endpointOf,
  type RequestFault,
  startStoreEmulator,
  type StoreEmulator,
} from '@appcat/store-emulator';
import { DATE_ONLY_FAKE, type ManagedProcess, startNatsServer, startRedisServer } from '@appcat/testing';
import type { INestMicroservice } from '@nestjs/common';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { APPLE_SOURCES, sourceOrderVariable, type SourcedRoute } from '../src/apple/apple-sources.js';
import { createCatalogApp } from '../src/catalog-app.js';
import { catalogControllerFor } from '../src/catalog.controller.js';
import { readCatalogConfig, type CatalogConfig } from '../src/config.js';
import type { ListData } from '../src/store/store-adapter.js';
import { RedisRateLimiter } from '../src/upstream/rate-limiter.js';

/**
 * Each route's first source only: the suites about one host's cache, breaker and limiter see its
 * failures as they are, not a later source's answer. apple-sources.spec.ts tests the chains.
 */
export const FIRST_SOURCES_ONLY: Record<string, string> = Object.fromEntries(
  Object.entries(APPLE_SOURCES).map(([route, sources]) => [sourceOrderVariable(route as SourcedRoute), sources[0]]),
);

/** Every route's sources in their default order. */
export const ALL_SOURCES: Record<string, string> = Object.fromEntries(
  Object.entries(APPLE_SOURCES).map(([route, sources]) => [
    sourceOrderVariable(route as SourcedRoute),
    sources.join(','),
  ]),
);

/** Catalog settings pointing every upstream at one emulator (or any local server); first sources only unless `env` says. */
export function configFor(upstreamUrl: string, env: Record<string, string> = {}): CatalogConfig {
  return readCatalogConfig({
    ...FIRST_SOURCES_ONLY,
    ITUNES_BASE_URL: upstreamUrl,
    APPLE_WEB_BASE_URL: upstreamUrl,
    APPLE_AMP_API_BASE_URL: upstreamUrl,
    PLAY_BASE_URL: upstreamUrl,
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

/**
 * The catalog's clock (Date) under the test's control, everything else real. Installed, it advances
 * only while this process runs (20 ms per tick of a real timer), so a loaded machine's stalls do not
 * age cache entries between two steps of a test; `advance` moves it past a lifetime instead of
 * sleeping through it. Lifetimes kept by Redis itself (locks, failure memos, keys' PX) stay real.
 */
export const catalogClock = {
  install(): void {
    jest.useFakeTimers({
      now: Date.now(),
      advanceTimers: true,
      doNotFake: [...DATE_ONLY_FAKE],
    });
  },
  advance(ms: number): void {
    jest.setSystemTime(Date.now() + ms);
  },
  uninstall(): void {
    jest.useRealTimers();
  },
};

/**
 * Waits until `condition` holds. The deadline only guards against a hang (a condition that never
 * comes true fails the test); it is no measure of speed, so it is generous.
 */
export async function until(
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 30_000,
  state?: () => unknown,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms${state ? `: ${JSON.stringify(state())}` : ''}`);
    await sleep(10);
  }
}

/**
 * Holds every request to one endpoint of the emulator until the test releases it: what arrived, in
 * order (a search's term, else the path and query), and the most held at once. Holding on a gate the
 * test opens, rather than for a delay, makes "N at the upstream at once" a state the test waits for,
 * whatever the machine's speed.
 */
export class HeldRequests {
  readonly arrived: string[] = [];
  mostHeld = 0;
  private gates: (() => void)[] = [];

  /** @param answer what a released request is answered instead of the real response (a 503, say). */
  constructor(emulator: StoreEmulator, endpoint: Endpoint = 'search', answer: Omit<RequestFault, 'until'> = {}) {
    emulator.setRequestHook((request) => {
      if (endpointOf(request.path) !== endpoint) return undefined;
      this.arrived.push(request.query.get('term') ?? `${request.path}?${request.query}`);
      const until = new Promise<void>((open) => this.gates.push(open));
      this.mostHeld = Math.max(this.mostHeld, this.gates.length);
      return { ...answer, until };
    });
  }

  /** Requests at the emulator now, waiting for their answer. */
  get held(): number {
    return this.gates.length;
  }

  /** Answers every request held now. */
  release(): void {
    for (const open of this.gates.splice(0)) open();
  }
}

/**
 * When each token the replicas' rate limiters grant from now on is due, on the limiter's own clock
 * (Redis's): the schedule it keeps. A loaded machine can delay the calls after their tokens by varying
 * amounts, bunching them at the upstream whatever the limiter did, so windows are measured on these.
 */
export function recordGrants(system: CatalogSystem): number[] {
  const dueAt: number[] = [];
  for (const replica of system.replicas) {
    const limiter = replica.get(RedisRateLimiter);
    limiter.take = async (upstream) => {
      const grant = await RedisRateLimiter.prototype.take.call(limiter, upstream);
      if (grant.granted && limiter.limitOf(upstream)) dueAt.push(grant.dueAt);
      return grant;
    };
  }
  return dueAt;
}

/**
 * The most grants in any window beyond what a bucket allows in it, `burst + rate × window`: positive
 * means more went out than the limiter should have let through. Due times are whole milliseconds,
 * rounded up (the token script's `math.ceil`, over a floating-point token count): a grant can fall due up
 * to a millisecond after its exact time, which shortens the window to the next grant by as much, so
 * each window is given that millisecond back.
 */
export function worstExcess(times: number[], burst: number, perMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let worst = -Infinity;
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i; j < sorted.length; j++)
      worst = Math.max(worst, j - i + 1 - (burst + perMs * (sorted[j] - sorted[i] + DUE_TIME_ROUNDING_MS)));
  }
  return worst;
}

/** How late a whole-millisecond due time can be against its exact one. */
const DUE_TIME_ROUNDING_MS = 1;

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
  static async start(
    options: {
      replicas?: number;
      env?: Record<string, string>;
      replicaEnv?: (replica: number) => Record<string, string>;
    } = {},
  ): Promise<CatalogSystem> {
    const [redisServer, nats, emulator] = await Promise.all([
      startRedisServer(),
      startNatsServer(),
      startStoreEmulator(),
    ]);
    const baseEnv: Record<string, string> = {
      NATS_URL: nats.url,
      REDIS_URL: redisServer.url,
      CATALOG_REDIS_PREFIX: `test-${randomUUID().slice(0, 8)}:`,
      // Generous limits unless a test is about them: the emulator does not throttle by default.
      ITUNES_RATE_PER_MIN: '0',
      APPLE_WEB_RATE_PER_MIN: '0',
      APPLE_AMP_API_RATE_PER_MIN: '0',
      PLAY_RATE_PER_MIN: '0',
      APPLE_CATALOGUE_RATE_PER_MIN: '0',
      // Bounds on healthy paths that a loaded machine must not reach (a call, a wait for a slot or a
      // lock, a Redis command, a lock its holder renews): tests of a bound set their own against a
      // much longer fault.
      UPSTREAM_TIMEOUT_MS: '30000',
      CATALOG_MAX_QUEUE_WAIT_MS: '30000',
      CACHE_LOCK_WAIT_MS: '30000',
      CACHE_LOCK_TTL_MS: '30000',
      CATALOG_REDIS_COMMAND_TIMEOUT_MS: '10000',
      ...options.env,
    };
    const config = configFor(emulator.url, baseEnv);
    const replicas: INestMicroservice[] = [];
    for (let i = 0; i < (options.replicas ?? 1); i++) {
      const own = options.replicaEnv?.(i);
      const app = await createCatalogApp(own ? configFor(emulator.url, { ...baseEnv, ...own }) : config, {
        logger: ['error'],
      });
      await app.listen();
      replicas.push(app);
    }
    const client = await NatsRpcClient.connect(
      { servers: [nats.url], requestTimeoutMs: 30_000, shutdownGraceMs: 0 },
      'catalog-test',
    );
    const redis = new Redis(redisServer.url, { protocol: 2, disconnectTimeout: 200 });
    redis.on('error', () => undefined);
    return new CatalogSystem(redisServer, nats, emulator, config, replicas, client, redis);
  }

  /** One catalog.fetch over NATS, answered by whichever replica the queue group picks. */
  async fetch(query: CatalogQuery): Promise<DecodedReply> {
    return decoded(
      await wireErrorsAsSent(
        this.client.request<CatalogReply>(
          CATALOG_SUBJECTS[this.config.store].fetch,
          { query, requestId: randomUUID() } satisfies CatalogRequest,
          { service: 'catalog' },
        ),
      ),
    );
  }

  /** One catalog.peek over NATS: the cached answer, or null (a miss whose upstream is available, or unknown). */
  async peek(query: CatalogQuery): Promise<DecodedReply | null> {
    const reply = await this.peekReply(query);
    if (isCatalogUnavailable(reply))
      throw new Error(`peek reported the upstream unavailable: ${reply.unavailable.message}`);
    return reply === null ? null : decoded(reply);
  }

  /** One catalog.peek over NATS, its reply as sent (a miss may report the upstream unavailable). */
  async peekReply(query: CatalogQuery): Promise<CatalogPeekReply> {
    return wireErrorsAsSent(
      this.client.request<CatalogPeekReply>(
        CATALOG_SUBJECTS[this.config.store].peek,
        { query, requestId: randomUUID() } satisfies CatalogRequest,
        { service: 'catalog' },
      ),
    );
  }

  /** The same request handled by one given replica (its controller called directly). */
  async via(replica: number, query: CatalogQuery): Promise<DecodedReply> {
    return decoded(
      (
        await this.replicas[replica]
          .get(catalogControllerFor(this.config.store))
          .fetch({ query, requestId: randomUUID() })
      ).toValue(),
    );
  }

  /** A replica's fetch budget now, from its gauges: fetches holding a slot and fetches waiting for one. */
  async budget(replica: number): Promise<{ inFlight: number; waiting: number }> {
    const { registry } = this.replicas[replica].get(CatalogMetrics);
    const read = async (name: string) => (await registry.getSingleMetric(name)!.get()).values[0]?.value ?? 0;
    return {
      inFlight: await read('appcat_catalog_fetches_in_flight'),
      waiting: await read('appcat_catalog_fetches_waiting'),
    };
  }

  /** Fetches every replica holds now, running or waiting for a slot. */
  async pending(): Promise<number> {
    const budgets = await Promise.all(this.replicas.map((_, i) => this.budget(i)));
    return budgets.reduce((sum, b) => sum + b.inFlight + b.waiting, 0);
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
