import type { GooglePlayConfig, UpstreamRateLimit } from '../config.js';
import type { UpstreamResponse } from '../upstream/upstream-http-client.js';

/** play.google.com as the rate limiter and the circuit breaker know it. */
export const PLAY_UPSTREAM = 'play';

export function playRateLimits(config: GooglePlayConfig): Map<string, UpstreamRateLimit> {
  return new Map([[PLAY_UPSTREAM, config.rateLimit]]);
}

/**
 * How Google Play refuses a client besides a 429: a redirect to its consent wall, a captcha page
 * ("unusual traffic", reCAPTCHA; usually a 503), or an error page served with 200 (`PlayGatewayError`).
 * Each is a failure of the source, never a page of data.
 */
export function playRefusal(response: UpstreamResponse): string | undefined {
  if (response.status >= 300 && response.status < 400) {
    const location = response.headers.get('location') ?? '';
    return /^https?:\/\/consent\.google\.com(?:[/?#:]|$)/i.test(location)
      ? 'a redirect to consent.google.com'
      : undefined;
  }
  if (response.body.includes('www.google.com/recaptcha') || response.body.includes('unusual traffic'))
    return `HTTP ${response.status} with a captcha`;
  if (response.status === 200 && response.body.includes('PlayGatewayError')) return 'HTTP 200 with PlayGatewayError';
  return undefined;
}
