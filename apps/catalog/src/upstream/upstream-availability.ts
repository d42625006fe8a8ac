import { type CatalogUnavailable, ErrorCode } from '@appcat/contracts';
import type { Redis } from 'ioredis';
import type { UpstreamRateLimit } from '../config.js';
import { type BreakerCause, CAUSE_CODES } from './circuit-breaker.js';
import { openMessage } from './guarded-http-client.js';

const inSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * Whether an upstream host can be asked now, read from the state its circuit breaker and rate limiter
 * keep in Redis, changing neither (no probe is claimed, no token taken). `catalog.peek` asks it on a
 * miss, so the gateway can refuse a call it knows cannot be delivered before charging for it.
 *
 * Two plain HMGETs rather than one script: the breaker and the limiter keys may live in different
 * Redis Cluster slots. The breaker's times are Redis's clock, compared here with ours; the few
 * milliseconds between them only move the edge of the open period. Redis being away answers
 * "available": the fetch that follows decides, as it would have without this check.
 */
export class UpstreamAvailability {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly limits: ReadonlyMap<string, UpstreamRateLimit>,
    private readonly maxWaitMs: number,
  ) {}

  async unavailable(upstream: string): Promise<CatalogUnavailable | null> {
    let breaker: (string | null)[];
    let bucket: (string | null)[];
    try {
      [breaker, bucket] = await Promise.all([
        this.redis.hmget(`${this.keyPrefix}breaker:${upstream}`, 'state', 'until', 'cause'),
        this.redis.hmget(`${this.keyPrefix}rate:${upstream}`, 'tokens', 'at'),
      ]);
    } catch {
      return null;
    }
    const now = Date.now();
    // Open, or a probe is out (the check would deny both): the same answer a fetch would get now.
    const openFor = Number(breaker[1] ?? 0) - now;
    if (breaker[0] && openFor > 0) {
      const [stored, ...detail] = (breaker[2] ?? '').split('|');
      const cause: BreakerCause = stored in CAUSE_CODES ? (stored as BreakerCause) : 'http';
      return unavailable(CAUSE_CODES[cause], openMessage(cause, detail.join('|'), upstream, openFor), openFor);
    }
    const limit = this.limits.get(upstream);
    if (!limit || limit.perMinute <= 0 || bucket[0] === null || bucket[1] === null) return null;
    // The token bucket as the limiter's script computes it: refused when the wait for a token is longer than allowed.
    const perMs = limit.perMinute / 60_000;
    const tokens = Math.min(limit.burst, Number(bucket[0]) + Math.max(0, now - Number(bucket[1])) * perMs);
    const waitMs = tokens >= 1 ? 0 : Math.ceil((1 - tokens) / perMs);
    if (waitMs <= this.maxWaitMs) return null;
    return unavailable(ErrorCode.UpstreamThrottled, `upstream store rate limit reached: ${limit.perMinute} calls a minute to ${upstream}; retry after ${inSeconds(waitMs)} s`, waitMs);
  }
}

function unavailable(code: ErrorCode, message: string, retryAfterMs: number): CatalogUnavailable {
  return { unavailable: { code, message, retryAfterSeconds: inSeconds(retryAfterMs) } };
}
