import { type CatalogUnavailable, ErrorCode } from '@appcat/contracts';
import type { RedisClient } from '@appcat/redis';
import type { BudgetState, RedisRateLimiter } from './rate-limiter.js';
import { type BreakerCause, CAUSE_CODES } from './circuit-breaker.js';
import { openMessage } from './guarded-http-client.js';

const inSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * Whether an upstream host can be asked now, read from its breaker's and rate limiter's state in Redis
 * without changing either. `catalog.peek` asks it on a miss, so the gateway refuses a call it knows cannot
 * be delivered before charging for it. Two reads, as the keys live in different cluster slots; Redis away
 * answers "available", leaving the verdict to the fetch, as without this check.
 */
export class UpstreamAvailability {
  constructor(
    private readonly redis: RedisClient,
    private readonly keyPrefix: string,
    private readonly limiter: RedisRateLimiter,
  ) {}

  /**
   * Whether the upstream's breaker is open now (or a probe is out), as every replica sees it: the
   * breaker gauge, read when metrics are scraped. Rejects when Redis is away.
   */
  async breakerOpen(upstream: string): Promise<boolean> {
    return openForMs(await this.breakerState(upstream)) > 0;
  }

  /** The breaker's state, until and cause fields in Redis. */
  private breakerState(upstream: string): Promise<(string | null)[]> {
    return this.redis.hmget(`${this.keyPrefix}breaker:${upstream}`, 'state', 'until', 'cause');
  }

  async unavailable(upstream: string): Promise<CatalogUnavailable | null> {
    let breaker: (string | null)[];
    let budget: BudgetState;
    try {
      [breaker, budget] = await Promise.all([this.breakerState(upstream), this.limiter.state(upstream)]);
    } catch {
      return null;
    }
    const openFor = openForMs(breaker);
    if (openFor > 0) {
      const [stored, ...detail] = (breaker[2] ?? '').split('|');
      const cause: BreakerCause = stored in CAUSE_CODES ? (stored as BreakerCause) : 'http';
      return unavailable(CAUSE_CODES[cause], openMessage(cause, detail.join('|'), upstream, openFor), openFor);
    }
    if (!this.limiter.exhausted(budget)) return null;
    const limit = this.limiter.limitOf(upstream);
    const egresses = this.limiter.egresses.length;
    const rate = `${limit?.perMinute ?? 0} calls a minute to ${upstream}${egresses > 1 ? ` from each of ${egresses} egresses` : ''}`;
    return unavailable(
      ErrorCode.UpstreamThrottled,
      `upstream store rate limit reached: ${rate}; retry after ${inSeconds(budget.waitMs)} s`,
      budget.waitMs,
    );
  }
}

/** How much longer a breaker in this state stays open, ms (0 or less: closed). */
function openForMs(breaker: (string | null)[]): number {
  // Open, or a probe is out (the check would deny both): the same answer a fetch would get now.
  return breaker[0] ? Number(breaker[1] ?? 0) - Date.now() : 0;
}

function unavailable(code: ErrorCode, message: string, retryAfterMs: number): CatalogUnavailable {
  return { unavailable: { code, message, retryAfterSeconds: inSeconds(retryAfterMs) } };
}
