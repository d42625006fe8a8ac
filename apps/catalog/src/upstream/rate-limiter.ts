import { Logger } from '@nestjs/common';
import type { RedisClient } from '@appcat/redis';
import type { Egress, UpstreamRateLimit } from '../config.js';
import { TOKEN_BUCKET_PEEK_SCRIPT, TOKEN_BUCKET_SCRIPT } from './guard-scripts.js';

/**
 * A token taken from `egress`'s bucket (maybe one that frees up in `waitMs`), or a refusal. `dueAt` is
 * when the token is due on the limiter's clock (Redis's; this process's while Redis is away), ms since
 * the epoch: the schedule the limiter keeps, whatever delays the call after it.
 */
export type TokenGrant =
  { granted: true; waitMs: number; dueAt: number; egress: Egress } | { granted: false; retryAfterMs: number };

/** What a host's budget holds right now, over every egress of this replica. */
export interface BudgetState {
  /** Whole tokens available now. */
  tokens: number;
  /** Until the next token frees up (0 when one is there). */
  waitMs: number;
}

interface LimiterCommands {
  catalogTakeToken(...args: string[]): Promise<[number, number, number, number?]>;
  catalogPeekTokens(...args: string[]): Promise<[number, number]>;
}

/** The same bucket in memory: what one replica does alone while Redis is away. */
class LocalBucket {
  private tokens: number;
  private at = Date.now();

  constructor(private readonly limit: UpstreamRateLimit) {
    this.tokens = limit.burst;
  }

  /** Tokens now (fractional), refilled up to the burst. */
  level(): number {
    const now = Date.now();
    if (now > this.at) {
      this.tokens = Math.min(this.limit.burst, this.tokens + ((now - this.at) * this.limit.perMinute) / 60_000);
      this.at = now;
    }
    return this.tokens;
  }

  take(): void {
    this.tokens -= 1;
  }
}

/**
 * Token buckets per upstream host and egress identity, in Redis and shared by every replica, so the
 * replicas calling from one identity together stay within the host's rate for it, and each identity
 * (a pod with its own address, a proxy) adds its own rate. A caller gets a token from the identity
 * that has one now (they take turns), or reserves the one freeing up first within `maxWaitMs` and
 * waits, or is refused at once; nobody queues unboundedly. The buckets of one host share a hash tag,
 * so one script chooses among them in one Redis Cluster slot. While Redis is down each replica keeps
 * its own buckets with the same settings.
 */
export class RedisRateLimiter {
  private readonly logger = new Logger('RateLimiter');
  private readonly redis: RedisClient & LimiterCommands;
  private readonly local = new Map<string, LocalBucket[]>();
  private turn = 0;
  private lastWarning = 0;

  constructor(
    redis: RedisClient,
    private readonly keyPrefix: string,
    private readonly maxWaitMs: number,
    private readonly limits: ReadonlyMap<string, UpstreamRateLimit>,
    readonly egresses: readonly Egress[],
  ) {
    redis.defineCommand('catalogTakeToken', { lua: TOKEN_BUCKET_SCRIPT });
    redis.defineCommand('catalogPeekTokens', { lua: TOKEN_BUCKET_PEEK_SCRIPT });
    this.redis = redis as RedisClient & LimiterCommands;
  }

  /** The host's limit; undefined when it has none (no limit configured, or a rate of 0). */
  limitOf(upstream: string): UpstreamRateLimit | undefined {
    const limit = this.limits.get(upstream);
    return limit && limit.perMinute > 0 ? limit : undefined;
  }

  /** A token for a call to `upstream`, granted by one of the egresses (always granted when the host has no limit). */
  async take(upstream: string): Promise<TokenGrant> {
    const limit = this.limitOf(upstream);
    if (!limit)
      return { granted: true, waitMs: 0, dueAt: Date.now(), egress: this.egresses[this.turn++ % this.egresses.length] };
    const first = this.turn++ % this.egresses.length;
    try {
      const keys = this.bucketKeys(upstream);
      const [granted, ms, index, dueAt] = await this.redis.catalogTakeToken(
        String(keys.length),
        ...keys,
        String(limit.perMinute),
        String(limit.burst),
        String(this.maxWaitMs),
        String(first),
      );
      return granted === 1
        ? { granted: true, waitMs: ms, dueAt: dueAt!, egress: this.egresses[index] }
        : { granted: false, retryAfterMs: ms };
    } catch (error) {
      this.warn(error);
      return this.takeLocally(upstream, limit, first);
    }
  }

  /**
   * What the host's budget holds now over this replica's egresses: one read, nothing taken. A host
   * without a limit has an unbounded budget.
   */
  async state(upstream: string): Promise<BudgetState> {
    const limit = this.limitOf(upstream);
    if (!limit) return { tokens: Number.POSITIVE_INFINITY, waitMs: 0 };
    try {
      const keys = this.bucketKeys(upstream);
      const [tokens, waitMs] = await this.redis.catalogPeekTokens(
        String(keys.length),
        ...keys,
        String(limit.perMinute),
        String(limit.burst),
      );
      return { tokens, waitMs };
    } catch (error) {
      this.warn(error);
      const levels = this.localBuckets(upstream, limit).map((b) => b.level());
      const most = Math.max(...levels);
      return {
        tokens: levels.reduce((sum, l) => sum + (l >= 1 ? Math.floor(l) : 0), 0),
        waitMs: most >= 1 ? 0 : Math.ceil(((1 - most) * 60_000) / limit.perMinute),
      };
    }
  }

  /**
   * Is the budget for `upstream` exhausted right now: would a call be refused, no egress having a
   * token within the longest wait? One Redis read (`catalog.peek` asks it to tell an uncharged
   * "cannot be had now" apart from a miss worth paying for).
   */
  async isExhausted(upstream: string): Promise<boolean> {
    return this.exhausted(await this.state(upstream));
  }

  /** Whether a budget in `state` refuses a call now: no token, and none within the longest wait. */
  exhausted(state: BudgetState): boolean {
    return state.tokens < 1 && state.waitMs > this.maxWaitMs;
  }

  private bucketKeys(upstream: string): string[] {
    // The host in braces: every egress bucket of one host in one Redis Cluster slot.
    return this.egresses.map((egress) => `${this.keyPrefix}rate:{${upstream}}:${egress.id}`);
  }

  private localBuckets(upstream: string, limit: UpstreamRateLimit): LocalBucket[] {
    let buckets = this.local.get(upstream);
    if (!buckets) this.local.set(upstream, (buckets = this.egresses.map(() => new LocalBucket(limit))));
    return buckets;
  }

  private takeLocally(upstream: string, limit: UpstreamRateLimit, first: number): TokenGrant {
    const buckets = this.localBuckets(upstream, limit);
    let best = first;
    for (let step = 0; step < buckets.length; step++) {
      const i = (first + step) % buckets.length;
      if (buckets[i].level() > buckets[best].level()) best = i;
      if (buckets[best].level() >= 1) break;
    }
    const level = buckets[best].level();
    const perMs = limit.perMinute / 60_000;
    const waitMs = level >= 1 ? 0 : Math.ceil((1 - level) / perMs);
    if (waitMs > this.maxWaitMs) return { granted: false, retryAfterMs: waitMs };
    buckets[best].take();
    return { granted: true, waitMs, dueAt: Date.now() + waitMs, egress: this.egresses[best] };
  }

  private warn(error: unknown): void {
    if (Date.now() - this.lastWarning > 30_000) {
      this.lastWarning = Date.now();
      this.logger.warn(
        `Redis unavailable, limiting upstream calls per replica: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
