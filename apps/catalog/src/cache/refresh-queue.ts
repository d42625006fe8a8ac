import type { RedisClient } from '@appcat/redis';
import { ENQUEUE_SCRIPT, NOTE_DEMAND_SCRIPT, PUT_BACK_SCRIPT, TAKE_SCRIPT, TURN_SCRIPT } from './refresh-scripts.js';

/**
 * How to refresh one resource, as any replica can rebuild it: the adapter's own description of the
 * request (`kind` and `args`), the upstream host whose budget pays for it, and the batch group whose
 * refreshes go out as one call.
 */
export interface RefreshJob {
  /** The upstream host the load calls (its rate budget pays). */
  upstream: string;
  /** Refreshes of one group share one batched call (lookups in one storefront); absent: one call each. */
  group?: string;
  /** Which of the adapter's resources, and its arguments. */
  kind: string;
  args: (string | number | null)[];
}

/** A key taken off the queue, with its demand and job. */
export interface QueuedRefresh {
  key: string;
  demand: number;
  job: RefreshJob;
}

interface QueueCommands {
  catalogNoteDemand(demand: string, queue: string, key: string, keepMs: string): Promise<number>;
  catalogEnqueueRefresh(
    queue: string,
    jobs: string,
    demand: string,
    previous: string,
    key: string,
    job: string,
    weight: string,
    keepMs: string,
    maxQueued: string,
  ): Promise<number>;
  catalogTakeRefreshes(queue: string, jobs: string, n: string): Promise<string[]>;
  catalogPutBackRefreshes(queue: string, jobs: string, keepMs: string, ...entries: string[]): Promise<number>;
  catalogRefreshTurn(turn: string, everyMs: string): Promise<number>;
}

/** Most keys waiting per upstream host; past it the least requested leave (they are queued again when asked for). */
const MAX_QUEUED_PER_HOST = 100_000;
/** An abandoned queue (a deployment gone) leaves Redis after a day. */
const QUEUE_KEEP_MS = 24 * 3600 * 1000;

/**
 * The refresh queue the replicas share in Redis: one sorted set per upstream host, ordered by demand
 * (requests per key over a sliding window), and the jobs that say how to refresh each key. The cache
 * queues a key when it serves it stale; the drainer takes the most requested keys when the host's
 * budget has tokens to spare. A key is queued once however often it is served stale meanwhile.
 */
export class RefreshQueue {
  private readonly redis: RedisClient & QueueCommands;
  private readonly windowMs: number;

  constructor(
    redis: RedisClient,
    private readonly keyPrefix: string,
    demandWindowSeconds: number,
  ) {
    redis.defineCommand('catalogNoteDemand', { numberOfKeys: 2, lua: NOTE_DEMAND_SCRIPT });
    redis.defineCommand('catalogEnqueueRefresh', { numberOfKeys: 4, lua: ENQUEUE_SCRIPT });
    redis.defineCommand('catalogTakeRefreshes', { numberOfKeys: 2, lua: TAKE_SCRIPT });
    redis.defineCommand('catalogPutBackRefreshes', { numberOfKeys: 2, lua: PUT_BACK_SCRIPT });
    redis.defineCommand('catalogRefreshTurn', { numberOfKeys: 1, lua: TURN_SCRIPT });
    this.redis = redis as RedisClient & QueueCommands;
    this.windowMs = demandWindowSeconds * 1000;
  }

  /** Counts one request for `key` (an entry the catalog reads through the shared cache). */
  async noteDemand(key: string, job: RefreshJob, now = Date.now()): Promise<void> {
    await this.redis.catalogNoteDemand(
      this.demandKey(Math.floor(now / this.windowMs)),
      this.queueKey(job.upstream),
      key,
      String(2 * this.windowMs),
    );
  }

  /** Queues a refresh of `key` unless it is queued already. Answers whether it was queued now. */
  async enqueue(key: string, job: RefreshJob, now = Date.now()): Promise<boolean> {
    const window = Math.floor(now / this.windowMs);
    // The part of the previous window still inside the sliding window.
    const weight = 1 - (now - window * this.windowMs) / this.windowMs;
    const queued = await this.redis.catalogEnqueueRefresh(
      this.queueKey(job.upstream),
      this.jobsKey(),
      this.demandKey(window),
      this.demandKey(window - 1),
      key,
      JSON.stringify(job),
      weight.toFixed(4),
      String(QUEUE_KEEP_MS),
      String(MAX_QUEUED_PER_HOST),
    );
    return queued === 1;
  }

  /** The `n` most requested keys waiting for `upstream`, taken off the queue. */
  async take(upstream: string, n: number): Promise<QueuedRefresh[]> {
    const flat = await this.redis.catalogTakeRefreshes(this.queueKey(upstream), this.jobsKey(), String(n));
    const taken: QueuedRefresh[] = [];
    for (let i = 0; i < flat.length; i += 3) {
      try {
        taken.push({ key: flat[i], demand: Number(flat[i + 1]), job: JSON.parse(flat[i + 2]) as RefreshJob });
      } catch {
        // A job that does not decode is dropped; the key is queued again when next served stale.
      }
    }
    return taken;
  }

  /** Puts back keys taken but not refreshed this time, with their demand. */
  async putBack(upstream: string, refreshes: QueuedRefresh[]): Promise<void> {
    if (refreshes.length === 0) return;
    const entries = refreshes.flatMap((r) => [r.key, String(r.demand), JSON.stringify(r.job)]);
    await this.redis.catalogPutBackRefreshes(
      this.queueKey(upstream),
      this.jobsKey(),
      String(QUEUE_KEEP_MS),
      ...entries,
    );
  }

  /**
   * Whether this replica has the host's guaranteed refresh turn now: at most one replica every
   * `everyMs`, however many ask.
   */
  async takeTurn(upstream: string, everyMs: number): Promise<boolean> {
    return (
      (await this.redis.catalogRefreshTurn(
        `${this.keyPrefix}{refresh}:turn:${upstream}`,
        String(Math.max(1, Math.round(everyMs))),
      )) === 1
    );
  }

  /** How many keys wait for `upstream`. */
  async size(upstream: string): Promise<number> {
    return this.redis.zcard(this.queueKey(upstream));
  }

  // One hash tag for all of them: every script of the queue runs in one Redis Cluster slot.
  private queueKey(upstream: string): string {
    return `${this.keyPrefix}{refresh}:queue:${upstream}`;
  }

  private jobsKey(): string {
    return `${this.keyPrefix}{refresh}:jobs`;
  }

  private demandKey(window: number): string {
    return `${this.keyPrefix}{refresh}:demand:${window}`;
  }
}
