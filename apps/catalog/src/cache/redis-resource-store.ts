import type { CatalogSource, WireError } from '@appcat/contracts';
import { ErrorCode } from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import { inContext, OUTCOME, tracingEnabled, withSpan } from '@appcat/ops';
import { Logger } from '@nestjs/common';
import type { RedisClient } from '@appcat/redis';
import { resourceKeys } from './resource-keys.js';
import { randomUUID } from 'node:crypto';
import { isUpstreamFailure } from '../upstream/upstream-failures.js';
import { FAIL_SCRIPT, FILL_SCRIPT, PROBE_SCRIPT, RENEW_SCRIPT } from './cache-scripts.js';
import type { FillNotifier } from './fill-notifier.js';
import { rememberJsonSource } from './json-source.js';
import { NotCachedError, type ResourceTrace } from './provenance.js';
import type { RefreshQueue } from './refresh-queue.js';
import type { Freshness, ResourceRequest, ResourceStore } from './resource-store.js';

export interface RedisResourceStoreOptions {
  keyPrefix: string;
  lockTtlMs: number;
  lockWaitMs: number;
  failureTtlMs: number;
  /** Entries past their freshness are served stale and refreshed through this queue; absent: loaded before answering. */
  refreshQueue?: RefreshQueue;
}

/** What a refresh did: loaded the entry, or found it fresh, failed moments ago, or being loaded by another. */
export type RefreshOutcome = 'refreshed' | 'fresh' | 'failed' | 'busy' | 'error';

interface CacheCommands {
  catalogProbe(
    entry: string,
    lock: string,
    failure: string,
    now: string,
    freshMs: string,
    notFoundMs: string,
    token: string,
    lockTtlMs: string,
    serveStaleMs: string,
  ): Promise<[string, string, string]>;
  catalogFill(
    entry: string,
    lock: string,
    token: string,
    value: string,
    keepMs: string,
    channel: string,
  ): Promise<number>;
  catalogFail(
    entry: string,
    lock: string,
    failure: string,
    token: string,
    failureJson: string,
    failureTtlMs: string,
    channel: string,
  ): Promise<number>;
  catalogRenew(lock: string, token: string, ttlMs: string): Promise<number>;
}

interface Entry<T> {
  fetchedAt: number;
  notFound: boolean;
  value: T | undefined;
  /** The store's source that produced it (absent in entries written before sources were kept). */
  from?: string;
}

interface Outcome<T> {
  value: T | undefined;
  source: CatalogSource;
  fetchedAt: number;
  from?: string;
}

type Probe<T> = { state: 'fresh' | 'stale' | 'failed' | 'locked' | 'busy'; entry?: Entry<T>; failure?: WireException };

interface Keys {
  entry: string;
  lock: string;
  failure: string;
}

// `<fetchedAt>|<notFound>|[<source>|]<JSON>`: a source name is lower-case letters and dashes, which no JSON text followed by `|` is.
function encodeEntry(fetchedAt: number, value: unknown, from?: string): string {
  const source = from === undefined ? '' : `${from}|`;
  return value === undefined ? `${fetchedAt}|1|${source}` : `${fetchedAt}|0|${source}${JSON.stringify(value)}`;
}

function decodeEntry<T>(raw: string): Entry<T> | undefined {
  const match = /^(\d+)\|([01])\|(?:([a-z][a-z0-9-]*)\|)?/.exec(raw);
  if (!match) return undefined;
  const notFound = match[2] === '1';
  const fetchedAt = Number(match[1]);
  const from = match[3];
  try {
    if (notFound) return { fetchedAt, notFound, value: undefined, from };
    const text = raw.slice(match[0].length);
    const value = JSON.parse(text) as T;
    rememberJsonSource(value, text);
    return { fetchedAt, notFound, value, from };
  } catch {
    return undefined;
  }
}

const outcomeOf = <T>({ value, fetchedAt, from }: Entry<T>) => ({ value, fetchedAt, from });

function decodeFailure(raw: string): WireException {
  try {
    const { code, message } = JSON.parse(raw) as WireError;
    return new WireException(code, message);
  } catch {
    return new WireException(ErrorCode.UpstreamBadResponse, 'upstream store failed moments ago');
  }
}

/** How long Redis keeps an entry: a found value as long as it may be served stale. */
function keepMs(freshness: Freshness, value: unknown): number {
  return value === undefined ? freshness.notFoundMs : Math.max(freshness.freshMs, freshness.staleMs);
}

/**
 * The cache shared by every catalog replica, in Redis. For each resource, at most one load is in
 * flight across all replicas: within a replica, identical requests share one promise; across
 * replicas, the first takes a lock (renewed while it loads, so a dead holder frees it within one lock
 * TTL) and the others wait for the filled entry, woken over pub/sub and polling as a fallback, for a
 * bounded time. A failed load is remembered briefly so that identical requests fail fast, or get
 * stale data, instead of queueing up on the upstream. A resource that says how to rebuild it (a
 * refresh job) is served stale at once when past its freshness, and queued for one refresh by
 * whichever replica's drainer takes it (stale-while-revalidate). When Redis itself fails, requests go
 * to the upstream directly (still merged within the replica).
 */
export class RedisResourceStore implements ResourceStore {
  private readonly logger = new Logger('ResourceCache');
  private readonly inflight = new Map<string, Promise<Outcome<unknown>>>();
  private readonly redis: RedisClient & CacheCommands;
  private readonly pollMs: number;
  private lastRedisWarning = 0;

  constructor(
    redis: RedisClient,
    private readonly notifier: FillNotifier,
    private readonly options: RedisResourceStoreOptions,
  ) {
    redis.defineCommand('catalogProbe', { numberOfKeys: 3, lua: PROBE_SCRIPT });
    redis.defineCommand('catalogFill', { numberOfKeys: 2, lua: FILL_SCRIPT });
    redis.defineCommand('catalogFail', { numberOfKeys: 3, lua: FAIL_SCRIPT });
    redis.defineCommand('catalogRenew', { numberOfKeys: 1, lua: RENEW_SCRIPT });
    this.redis = redis as RedisClient & CacheCommands;
    // Pub/sub wakes waiters at once; polling only covers lost messages and locks freed by expiry.
    this.pollMs = Math.min(250, Math.max(20, Math.floor(options.lockTtlMs / 4)));
  }

  get<T>(request: ResourceRequest<T>, trace: ResourceTrace): Promise<T | undefined> {
    if (tracingEnabled()) return this.tracedGet(request, trace);
    // Not async itself: a cache-only read answers with peek's own promise, one fewer per call.
    return trace.cacheOnly ? this.peek(request, trace) : this.getShared(request, trace);
  }

  /** `get` in a span of its own, whose outcome is where the resource came from (or `miss`). */
  private tracedGet<T>(request: ResourceRequest<T>, trace: ResourceTrace): Promise<T | undefined> {
    const attributes = {
      'appcat.cache.resource': request.key.split(':', 2).join(':'),
      'appcat.cache.peek': trace.cacheOnly,
    };
    return withSpan(
      'catalog.cache.read',
      attributes,
      (span) => {
        const noted: ResourceTrace = {
          cacheOnly: trace.cacheOnly,
          callContext: span.context,
          record: (source, fetchedAt, freshMs) => {
            span.set({ [OUTCOME]: source });
            trace.record(source, fetchedAt, freshMs);
          },
        };
        // The upstream is asked after awaits (the probe, a lock): its load runs in this span's context
        // (a call not sampled makes no span, and its request goes as it is).
        const spanContext = span.context;
        const traced: ResourceRequest<T> =
          spanContext === undefined
            ? request
            : { ...request, load: (noteSource) => inContext(spanContext, () => request.load(noteSource)) };
        const read = trace.cacheOnly ? this.peek(traced, noted) : this.getShared(traced, noted);
        return read.catch((error: unknown) => {
          if (error instanceof NotCachedError) span.set({ [OUTCOME]: 'miss' });
          throw error;
        });
      },
      { parent: trace.callContext },
    );
  }

  /** The resource through the in-flight map: loaded by this request, or by the one it joins. */
  private async getShared<T>(request: ResourceRequest<T>, trace: ResourceTrace): Promise<T | undefined> {
    const queue = this.options.refreshQueue;
    if (queue && request.refresh)
      queue.noteDemand(request.key, request.refresh).catch((error: unknown) => this.redisFailed(error));
    let shared = this.inflight.get(request.key) as Promise<Outcome<T>> | undefined;
    const leader = shared === undefined;
    if (!shared) {
      const started = this.resolve(request);
      shared = started;
      this.inflight.set(request.key, started);
      const forget = () => {
        if (this.inflight.get(request.key) === started) this.inflight.delete(request.key);
      };
      started.then(forget, forget);
    }
    const outcome = await shared;
    // Only the request that made the upstream call reports 'upstream'; the ones merged into it were
    // spared a call, which is what a cache hit means to the caller.
    const freshMs = outcome.value === undefined ? request.freshness.notFoundMs : request.freshness.freshMs;
    const source = !leader && outcome.source === 'upstream' ? 'cache' : outcome.source;
    trace.record(source, outcome.fetchedAt, freshMs, outcome.from);
    return outcome.value;
  }

  /**
   * A fresh entry or {@link NotCachedError}: one plain GET, no lock taken, no load joined, nothing asked
   * of the upstream. Stale entries, remembered failures and Redis being away all count as not cached;
   * the full fetch that follows a paid call deals with them.
   */
  private async peek<T>(request: ResourceRequest<T>, trace: ResourceTrace): Promise<T | undefined> {
    // withRedis written out: no closure and no extra promise on the read every paid call makes.
    let raw: string | null;
    try {
      raw = await this.redis.get(this.entryKey(request.key));
    } catch (error) {
      this.redisFailed(error);
      raw = null;
    }
    const entry = raw === null ? undefined : decodeEntry<T>(raw);
    const freshFor = entry?.notFound ? request.freshness.notFoundMs : request.freshness.freshMs;
    if (!entry || Date.now() - entry.fetchedAt >= freshFor)
      throw new NotCachedError(request.key, entry !== undefined && !entry.notFound);
    trace.record('cache', entry.fetchedAt, freshFor, entry.from);
    return entry.value;
  }

  async put(freshness: Freshness, entries: Iterable<[key: string, value: unknown]>, source?: string): Promise<void> {
    const now = Date.now();
    // One command per entry, not a pipeline: on a Redis Cluster a pipeline stays in one slot. Sent
    // together, they are in flight together.
    const writes = [...entries].map(
      ([key, value]) => [this.entryKey(key), encodeEntry(now, value, source), keepMs(freshness, value)] as const,
    );
    if (writes.length === 0) return;
    await this.withRedis(
      () => Promise.all(writes.map(([key, encoded, ms]) => this.redis.set(key, encoded, 'PX', ms))),
      undefined,
    );
  }

  async drop(key: string): Promise<void> {
    await this.withRedis(() => this.redis.del(this.entryKey(key)), undefined);
  }

  private entryKey(key: string): string {
    return resourceKeys(this.options.keyPrefix, key).entry;
  }

  private keysOf(key: string): Keys {
    return resourceKeys(this.options.keyPrefix, key);
  }

  /**
   * Refreshes a resource taken off the refresh queue: loads it unless it is fresh again, failed
   * moments ago or being loaded (by a caller or another refresh); never serves anything.
   */
  async refresh<T>(request: ResourceRequest<T>): Promise<RefreshOutcome> {
    const keys = this.keysOf(request.key);
    const token = randomUUID();
    const probe = await this.probe<T>(request, keys, token, false);
    if (!probe) return 'error';
    if (probe.state !== 'locked')
      return probe.state === 'fresh' ? 'fresh' : probe.state === 'failed' ? 'failed' : 'busy';
    try {
      await this.loadAndFill(request, keys, token, undefined);
      return 'refreshed';
    } catch {
      // Remembered by loadAndFill as a failure memo; the key is queued again when next served stale.
      return 'failed';
    }
  }

  private async resolve<T>(request: ResourceRequest<T>): Promise<Outcome<T>> {
    const keys = this.keysOf(request.key);
    const token = randomUUID();
    const probe = await this.probe<T>(request, keys, token, true);
    // An entry that does not decode is treated like Redis being away: ask the upstream.
    if (!probe || ((probe.state === 'fresh' || probe.state === 'stale') && !probe.entry))
      return this.loadWithoutRedis(request);
    return this.settle(request, keys, token, probe, Date.now() + this.options.lockWaitMs);
  }

  /** @param serveStale a found entry past its freshness may be answered as 'stale' (the request has a refresh job and there is a queue). */
  private async probe<T>(
    request: ResourceRequest<T>,
    keys: Keys,
    token: string,
    serveStale: boolean,
  ): Promise<Probe<T> | undefined> {
    const { freshMs, notFoundMs, staleMs } = request.freshness;
    const serveStaleMs = serveStale && request.refresh && this.options.refreshQueue ? staleMs : 0;
    const reply = await this.withRedis(
      () =>
        this.redis.catalogProbe(
          keys.entry,
          keys.lock,
          keys.failure,
          String(Date.now()),
          String(freshMs),
          String(notFoundMs),
          token,
          String(this.options.lockTtlMs),
          String(serveStaleMs),
        ),
      undefined,
    );
    if (!reply) return undefined;
    const [state, rawEntry, rawFailure] = reply;
    return {
      state: state as Probe<T>['state'],
      entry: rawEntry ? decodeEntry<T>(rawEntry) : undefined,
      failure: rawFailure ? decodeFailure(rawFailure) : undefined,
    };
  }

  private settle<T>(
    request: ResourceRequest<T>,
    keys: Keys,
    token: string,
    probe: Probe<T>,
    deadline: number,
  ): Promise<Outcome<T>> {
    switch (probe.state) {
      case 'fresh':
        return Promise.resolve({ ...outcomeOf(probe.entry!), source: 'cache' });
      case 'stale':
        // Served now; one refresh is queued (the queue holds a key once), the caller never waits for it.
        this.options
          .refreshQueue!.enqueue(request.key, request.refresh!)
          .catch((error: unknown) => this.redisFailed(error));
        return Promise.resolve({ ...outcomeOf(probe.entry!), source: 'stale' });
      case 'failed':
        return Promise.resolve(this.staleOr(request, probe.entry, probe.failure!));
      case 'locked':
        return this.loadAndFill(request, keys, token, probe.entry);
      case 'busy':
        return this.waitForFill(request, keys, token, probe.entry, deadline);
    }
  }

  /** Stale data when there is some young enough; otherwise the failure. */
  private staleOr<T>(request: ResourceRequest<T>, entry: Entry<T> | undefined, failure: WireException): Outcome<T> {
    if (entry && !entry.notFound && Date.now() - entry.fetchedAt < request.freshness.staleMs) {
      return { ...outcomeOf(entry), source: 'stale' };
    }
    throw failure;
  }

  private async loadAndFill<T>(
    request: ResourceRequest<T>,
    keys: Keys,
    token: string,
    stale: Entry<T> | undefined,
  ): Promise<Outcome<T>> {
    const { lockTtlMs, failureTtlMs } = this.options;
    const renewal = setInterval(
      () => {
        this.redis.catalogRenew(keys.lock, token, String(lockTtlMs)).catch(() => undefined);
      },
      Math.max(10, Math.floor(lockTtlMs / 3)),
    );
    renewal.unref();
    let value: T | undefined;
    let from: string | undefined;
    try {
      value = await request.load((name) => (from = name));
    } catch (error) {
      clearInterval(renewal);
      // Only upstream failures are worth remembering; anything else (a bug) must not be replayed.
      const failure = isUpstreamFailure(error) ? error : undefined;
      const memo = failure ? JSON.stringify(failure.getError()) : '';
      await this.withRedis(
        () =>
          this.redis.catalogFail(
            keys.entry,
            keys.lock,
            keys.failure,
            token,
            memo,
            String(failure ? failureTtlMs : 0),
            this.channel,
          ),
        undefined,
      );
      if (!failure) throw error;
      return this.staleOr(request, stale, failure);
    }
    clearInterval(renewal);
    const fetchedAt = Date.now();
    await this.withRedis(
      () =>
        this.redis.catalogFill(
          keys.entry,
          keys.lock,
          token,
          encodeEntry(fetchedAt, value, from),
          String(keepMs(request.freshness, value)),
          this.channel,
        ),
      undefined,
    );
    return { value, source: 'upstream', fetchedAt, from };
  }

  private async waitForFill<T>(
    request: ResourceRequest<T>,
    keys: Keys,
    token: string,
    stale: Entry<T> | undefined,
    deadline: number,
  ): Promise<Outcome<T>> {
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        return this.staleOr(
          request,
          stale,
          new WireException(
            ErrorCode.UpstreamTimeout,
            `upstream store did not answer within ${this.options.lockWaitMs} ms (another request for the same data was waiting for it)`,
          ),
        );
      }
      await this.notifier.wait(keys.entry, Math.min(this.pollMs, remaining));
      const probe = await this.probe<T>(request, keys, token, true);
      if (!probe || ((probe.state === 'fresh' || probe.state === 'stale') && !probe.entry))
        return this.loadWithoutRedis(request);
      if (probe.state !== 'busy') return this.settle(request, keys, token, probe, deadline);
      stale = probe.entry ?? stale;
    }
  }

  private async loadWithoutRedis<T>(request: ResourceRequest<T>): Promise<Outcome<T>> {
    let from: string | undefined;
    const value = await request.load((name) => (from = name));
    return { value, source: 'upstream', fetchedAt: Date.now(), from };
  }

  private get channel(): string {
    return this.notifier.channel;
  }

  /** Runs a Redis call; when Redis fails, logs (at most every 30 s) and answers `fallback`. */
  private async withRedis<R, F>(call: () => Promise<R>, fallback: F): Promise<R | F> {
    try {
      return await call();
    } catch (error) {
      this.redisFailed(error);
      return fallback;
    }
  }

  /** Logs a failed Redis call, at most every 30 s. */
  private redisFailed(error: unknown): void {
    if (Date.now() - this.lastRedisWarning > 30_000) {
      this.lastRedisWarning = Date.now();
      this.logger.warn(
        `Redis unavailable, serving without the shared cache: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
