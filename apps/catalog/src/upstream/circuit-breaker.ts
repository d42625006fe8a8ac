import { ErrorCode } from '@appcat/contracts';
import { Logger } from '@nestjs/common';
import type { RedisClient } from '@appcat/redis';
import type { BreakerSettings } from '../config.js';
import { BREAKER_CHECK_SCRIPT, BREAKER_RECORD_SCRIPT } from './guard-scripts.js';

/** Why a breaker opened: decides the error code callers get while it is open. */
export type BreakerCause = 'throttle' | 'http' | 'timeout' | 'unreachable';

export const CAUSE_CODES: Record<BreakerCause, ErrorCode> = {
  throttle: ErrorCode.UpstreamThrottled,
  http: ErrorCode.UpstreamHttpError,
  timeout: ErrorCode.UpstreamTimeout,
  unreachable: ErrorCode.UpstreamUnreachable,
};

export type BreakerGate =
  | { verdict: 'allow'; failures: number }
  | { verdict: 'probe' }
  | { verdict: 'deny'; retryAfterMs: number; cause: BreakerCause; detail: string };

interface BreakerCommands {
  catalogBreakerCheck(breaker: string, probeSlotMs: string): Promise<[string, number, string, number]>;
  catalogBreakerRecord(
    breaker: string,
    outcome: string,
    retryAfterMs: string,
    threshold: string,
    openMs: string,
    throttleOpenMs: string,
    maxOpenMs: string,
    cause: string,
    failureWindowMs: string,
  ): Promise<number>;
}

function parseCause(stored: string): { cause: BreakerCause; detail: string } {
  const [cause, ...detail] = stored.split('|');
  return { cause: cause in CAUSE_CODES ? (cause as BreakerCause) : 'http', detail: detail.join('|') };
}

/**
 * A circuit breaker per upstream host, its state in Redis so every replica sees the same one. While
 * open, requests to the host fail at once (or are served stale) instead of prolonging Apple's
 * throttling; when the open period ends, one probe request is let through and its outcome closes or
 * reopens it. If Redis is away the breaker lets everything through (the rate limiter still holds).
 */
export class RedisCircuitBreaker {
  private readonly logger = new Logger('CircuitBreaker');
  private readonly redis: RedisClient & BreakerCommands;
  private lastWarning = 0;

  constructor(
    redis: RedisClient,
    private readonly keyPrefix: string,
    private readonly settings: BreakerSettings,
    /** How long a probe may take before another caller may probe (a probe whose replica died). */
    private readonly probeSlotMs: number,
  ) {
    redis.defineCommand('catalogBreakerCheck', { numberOfKeys: 1, lua: BREAKER_CHECK_SCRIPT });
    redis.defineCommand('catalogBreakerRecord', { numberOfKeys: 1, lua: BREAKER_RECORD_SCRIPT });
    this.redis = redis as RedisClient & BreakerCommands;
  }

  async check(upstream: string): Promise<BreakerGate> {
    try {
      const [verdict, retryAfterMs, cause, failures] = await this.redis.catalogBreakerCheck(
        this.key(upstream),
        String(this.probeSlotMs),
      );
      if (verdict === 'deny') return { verdict, retryAfterMs, ...parseCause(cause) };
      return verdict === 'probe' ? { verdict } : { verdict: 'allow', failures };
    } catch (error) {
      this.warn(error);
      return { verdict: 'allow', failures: 0 };
    }
  }

  /** Records a failure; answers how long the breaker is now open, ms (0: still closed). */
  async failed(upstream: string, cause: BreakerCause, detail: string, retryAfterMs?: number): Promise<number> {
    return this.record(upstream, cause === 'throttle' ? 'throttle' : 'failure', `${cause}|${detail}`, retryAfterMs);
  }

  async succeeded(upstream: string): Promise<void> {
    await this.record(upstream, 'success', '');
  }

  private async record(upstream: string, outcome: string, cause: string, retryAfterMs?: number): Promise<number> {
    const { failureThreshold, openMs, throttleOpenMs, maxOpenMs } = this.settings;
    try {
      return await this.redis.catalogBreakerRecord(
        this.key(upstream),
        outcome,
        String(retryAfterMs ?? -1),
        String(failureThreshold),
        String(openMs),
        String(throttleOpenMs),
        String(maxOpenMs),
        cause,
        String(Math.max(openMs, 60_000)),
      );
    } catch (error) {
      this.warn(error);
      return 0;
    }
  }

  private key(upstream: string): string {
    return `${this.keyPrefix}breaker:${upstream}`;
  }

  private warn(error: unknown): void {
    if (Date.now() - this.lastWarning < 30_000) return;
    this.lastWarning = Date.now();
    this.logger.warn(
      `Redis unavailable, upstream circuit breakers stay closed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
