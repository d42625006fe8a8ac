import type { CatalogUnavailable } from '@appcat/contracts';
import { httpErrorFor } from '../errors/http-status.js';
import type { HttpError } from '../errors/http-error.js';

/**
 * How long after the catalog last reported an upstream unavailable this replica keeps checking before
 * it charges, beyond the Retry-After it was given: a breaker whose probe fails reopens at once, and the
 * calls charged in the moment before the next report would be charged for a 502.
 */
const GRACE_MS = 5_000;

/**
 * What this gateway replica has lately heard of upstream outages. A priced call normally charges and
 * reads the catalog's cache side by side, so a warm call costs one round trip, not two; a charge sent
 * cannot be taken back. While an upstream was reported unavailable moments ago, calls wait for the
 * cache read first and are refused uncharged when it says the call cannot be delivered. Outside such
 * windows nothing waits: at most the calls in flight when an upstream goes down are charged a 502.
 */
export class UpstreamOutage {
  private suspectedUntil = 0;

  /** An upstream was recently reported unavailable: check before charging. */
  suspected(now = Date.now()): boolean {
    return now < this.suspectedUntil;
  }

  /** Notes a report and returns the uncharged 502 it calls for. */
  refusal(report: CatalogUnavailable, now = Date.now()): HttpError {
    const { code, message, retryAfterSeconds } = report.unavailable;
    this.suspectedUntil = Math.max(this.suspectedUntil, now + retryAfterSeconds * 1000 + GRACE_MS);
    const error = httpErrorFor(code, `${message}; nothing was charged`);
    error.headers['retry-after'] = String(retryAfterSeconds);
    return error;
  }

  /**
   * A charged fetch failed: the upstream may be going down (its breaker opens after a few failures),
   * so the next calls check first for a little while.
   */
  failed(now = Date.now()): void {
    this.suspectedUntil = Math.max(this.suspectedUntil, now + GRACE_MS);
  }

  /** Notes a report that came too late to spare the charge. */
  note(report: CatalogUnavailable, now = Date.now()): void {
    this.suspectedUntil = Math.max(this.suspectedUntil, now + report.unavailable.retryAfterSeconds * 1000 + GRACE_MS);
  }
}
