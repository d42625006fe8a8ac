import { ErrorCode } from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import { type Context, inContext, OUTCOME, tracingEnabled, withSpan } from '@appcat/ops';
import type { Egress } from '../config.js';
import { type BreakerCause, type BreakerGate, CAUSE_CODES, type RedisCircuitBreaker } from './circuit-breaker.js';
import type { RedisRateLimiter } from './rate-limiter.js';
import type { UpstreamHttpClient, UpstreamRequest, UpstreamResponse } from './upstream-http-client.js';

const inSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** Retry-After as seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  // Only the HTTP date format: Date.parse takes "1.5" or "-5" for dates too.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function failureCause(error: WireException): BreakerCause | undefined {
  if (error.code === ErrorCode.UpstreamTimeout) return 'timeout';
  if (error.code === ErrorCode.UpstreamUnreachable) return 'unreachable';
  return undefined;
}

export function openMessage(cause: BreakerCause, detail: string, host: string, retryMs: number): string {
  const what = cause === 'throttle' ? 'is throttling us' : 'is failing';
  return `upstream store ${what} (${detail}, ${host}); retry after ${inSeconds(retryMs)} s`;
}

/**
 * Every upstream call goes through here: the host's circuit breaker first (an open one refuses at
 * once), then its rate limiter (a token now, one within a bounded wait, or a refusal), then the
 * call, whose outcome feeds the breaker. Apple's throttling (403 with an empty body, 429) becomes our
 * own UPSTREAM_THROTTLED naming the cause and when to retry, never Apple's status as if it were the
 * caller's fault.
 */
export class GuardedHttpClient implements UpstreamHttpClient {
  /**
   * Egresses whose token a batch took in admit(), per host, oldest first; the next admitted request
   * to the host goes out through the oldest. Tokens of one host are alike, so which admitted batch
   * uses which does not matter, only that each token is used once.
   */
  private readonly admissions = new Map<string, { egress: Egress; at: number }[]>();

  constructor(
    private readonly inner: UpstreamHttpClient,
    private readonly breaker: RedisCircuitBreaker,
    readonly limiter: RedisRateLimiter,
  ) {}

  async admit(upstream: string, url: URL): Promise<void> {
    const gate = await this.breaker.check(upstream);
    if (gate.verdict === 'deny')
      throw new WireException(
        CAUSE_CODES[gate.cause],
        openMessage(gate.cause, gate.detail, url.host, gate.retryAfterMs),
      );
    const egress = await this.takeToken(upstream, url.host);
    const queue = this.admissions.get(upstream) ?? [];
    // An admission whose batch failed before calling (a token page that did not load) is dropped after a minute.
    const now = Date.now();
    while (queue.length > 0 && now - queue[0].at > 60_000) queue.shift();
    queue.push({ egress, at: now });
    this.admissions.set(upstream, queue);
  }

  /**
   * Each upstream request the catalog tries, breaker and rate limit included: with tracing on, a span
   * naming the upstream and its outcome (the status, or the refusal's code).
   */
  get(request: UpstreamRequest): Promise<UpstreamResponse> {
    if (!tracingEnabled()) return this.guardedGet(request);
    const attributes = { 'appcat.upstream.host': request.upstream ?? request.url.host };
    return withSpan('catalog.upstream.request', attributes, async (span) => {
      const response = await this.guardedGet(request, span.context);
      span.set({
        'http.response.status_code': response.status,
        [OUTCOME]: response.status < 400 ? 'ok' : `HTTP_${response.status}`,
      });
      return response;
    });
  }

  /** @param trace the request span's context, in which the HTTP request is made (its span's parent). */
  private async guardedGet(request: UpstreamRequest, trace?: Context): Promise<UpstreamResponse> {
    const host = request.url.host;
    const upstream = request.upstream ?? host;
    // An admitted request passed the breaker in admit(), maybe as its probe: checking again would
    // find its own probe out and refuse it.
    const gate: BreakerGate = request.admitted ? { verdict: 'probe' } : await this.breaker.check(upstream);
    if (gate.verdict === 'deny')
      throw new WireException(CAUSE_CODES[gate.cause], openMessage(gate.cause, gate.detail, host, gate.retryAfterMs));
    const egress = request.admitted
      ? (this.admissions.get(upstream)?.shift()?.egress ?? this.limiter.egresses[0])
      : await this.takeToken(upstream, host);

    let response: UpstreamResponse;
    try {
      response = await inContext(trace, () => this.inner.get({ ...request, egress }));
    } catch (error) {
      const cause = error instanceof WireException ? failureCause(error) : undefined;
      if (cause) await this.breaker.failed(upstream, cause, cause === 'timeout' ? 'timed out' : 'unreachable');
      throw error;
    }

    const refused = request.refusal?.(response);
    const throttled =
      refused !== undefined || response.status === 429 || (response.status === 403 && response.body.trim() === '');
    if (throttled) {
      const detail = refused ?? (response.status === 429 ? 'HTTP 429' : 'HTTP 403 with an empty body');
      const openMs = await this.breaker.failed(
        upstream,
        'throttle',
        detail,
        retryAfterMs(response.headers.get('retry-after')),
      );
      const hint = openMs > 0 ? openMs : (retryAfterMs(response.headers.get('retry-after')) ?? 1000);
      throw new WireException(ErrorCode.UpstreamThrottled, openMessage('throttle', detail, host, hint));
    }
    if (response.status >= 500) {
      await this.breaker.failed(upstream, 'http', `HTTP ${response.status}`);
    } else if (gate.verdict === 'probe' || gate.failures > 0) {
      await this.breaker.succeeded(upstream);
    }
    return response;
  }

  /**
   * A token now, or after a bounded wait, from one of the egresses; refused beyond
   * UPSTREAM_RATE_LIMIT_MAX_WAIT_MS with UPSTREAM_THROTTLED naming the budget. Answers the egress the
   * call must go out through.
   */
  private async takeToken(upstream: string, host: string): Promise<Egress> {
    const grant = await this.limiter.take(upstream);
    if (!grant.granted) {
      const perMinute = this.limiter.limitOf(upstream)?.perMinute ?? 0;
      const egresses = this.limiter.egresses.length;
      const from = egresses === 1 ? '' : ` from each of ${egresses} egresses`;
      throw new WireException(
        ErrorCode.UpstreamThrottled,
        `upstream store rate limit reached: ${perMinute} calls a minute to ${host}${from}; retry after ${inSeconds(grant.retryAfterMs)} s`,
      );
    }
    if (grant.waitMs > 0) await new Promise((resolve) => setTimeout(resolve, grant.waitMs));
    return grant.egress;
  }
}
