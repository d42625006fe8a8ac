import { Logger } from '@nestjs/common';
import type { RedisClient } from '../redis/redis-connection.js';
import type { UpstreamRateLimit } from '../config.js';
import { TOKEN_BUCKET_SCRIPT } from './guard-scripts.js';

export type TokenGrant = { granted: true; waitMs: number } | { granted: false; retryAfterMs: number };

interface LimiterCommands {
  catalogTakeToken(bucket: string, perMinute: string, burst: string, maxWaitMs: string): Promise<[number, number]>;
}

/** The same bucket in memory: what one replica does alone while Redis is away. */
class LocalBucket {
  private tokens: number;
  private at = Date.now();

  constructor(private readonly limit: UpstreamRateLimit) {
    this.tokens = limit.burst;
  }

  take(maxWaitMs: number): TokenGrant {
    const perMs = this.limit.perMinute / 60_000;
    const now = Date.now();
    if (now > this.at) {
      this.tokens = Math.min(this.limit.burst, this.tokens + (now - this.at) * perMs);
      this.at = now;
    }
    const left = this.tokens - 1;
    const waitMs = left < 0 ? Math.ceil(-left / perMs) : 0;
    if (waitMs > maxWaitMs) return { granted: false, retryAfterMs: Math.ceil((1 - this.tokens) / perMs) };
    this.tokens = left;
    return { granted: true, waitMs };
  }
}

/**
 * A token bucket per upstream host in Redis, shared by every replica, so N replicas together stay
 * within the host's rate. A caller either gets a token (maybe one that frees up within
 * `maxWaitMs`, then it waits that long) or is refused at once; nobody queues unboundedly. While
 * Redis is down each replica keeps its own bucket with the same settings.
 */
export class RedisRateLimiter {
  private readonly logger = new Logger('RateLimiter');
  private readonly redis: RedisClient & LimiterCommands;
  private readonly local = new Map<string, LocalBucket>();
  private lastWarning = 0;

  constructor(
    redis: RedisClient,
    private readonly keyPrefix: string,
    private readonly maxWaitMs: number,
  ) {
    redis.defineCommand('catalogTakeToken', { numberOfKeys: 1, lua: TOKEN_BUCKET_SCRIPT });
    this.redis = redis as RedisClient & LimiterCommands;
  }

  async take(upstream: string, limit: UpstreamRateLimit): Promise<TokenGrant> {
    try {
      const [granted, ms] = await this.redis.catalogTakeToken(`${this.keyPrefix}rate:${upstream}`, String(limit.perMinute), String(limit.burst), String(this.maxWaitMs));
      return granted === 1 ? { granted: true, waitMs: ms } : { granted: false, retryAfterMs: ms };
    } catch (error) {
      if (Date.now() - this.lastWarning > 30_000) {
        this.lastWarning = Date.now();
        this.logger.warn(`Redis unavailable, limiting upstream calls per replica: ${error instanceof Error ? error.message : String(error)}`);
      }
      let bucket = this.local.get(upstream);
      if (!bucket) this.local.set(upstream, (bucket = new LocalBucket(limit)));
      return bucket.take(this.maxWaitMs);
    }
  }
}
