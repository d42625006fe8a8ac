import { empty, type EmulatorResponse } from '../http.js';
import type { Endpoint } from './endpoints.js';

export interface RateLimitSettings {
  /** Search and Lookup calls allowed per window; past it, 403 with an empty body as Apple answers. 0: no limit. */
  perMinute: number;
  /** Web catalogue calls allowed per window; past it, 429 with Retry-After. 0: no limit. */
  ampPerMinute: number;
  /** The window both limits count over, ms (60000 as Apple; tests shorten it). */
  windowMs: number;
}

export const NO_RATE_LIMIT: RateLimitSettings = { perMinute: 0, ampPerMinute: 0, windowMs: 60_000 };

const SEARCH_LOOKUP: ReadonlySet<Endpoint> = new Set(['search', 'lookup']);
const WEB_CATALOGUE: ReadonlySet<Endpoint> = new Set(['amp-apps', 'amp-app-bundles', 'amp-search']);

/** Requests of one class in the last window, oldest first. */
class SlidingWindow {
  private readonly times: number[] = [];

  /** Counts the request if it fits; otherwise ms until the oldest one leaves the window. */
  admit(limit: number, windowMs: number, now: number): number {
    while (this.times.length > 0 && this.times[0] <= now - windowMs) this.times.shift();
    if (this.times.length < limit) {
      this.times.push(now);
      return 0;
    }
    return this.times[0] + windowMs - now;
  }

  clear(): void {
    this.times.length = 0;
  }
}

/**
 * Apple's throttling, emulated: a sliding window per endpoint class, shared by every client (Apple
 * counts per IP; everything reaching the emulator comes from one machine). Refused requests do not
 * count, so a client that backs off recovers once the window has moved on.
 */
export class EmulatedRateLimit {
  private settings: RateLimitSettings;
  private readonly searchLookup = new SlidingWindow();
  private readonly webCatalogue = new SlidingWindow();

  constructor(settings: Partial<RateLimitSettings> = {}) {
    this.settings = { ...NO_RATE_LIMIT, ...settings };
  }

  configure(settings: Partial<RateLimitSettings>): RateLimitSettings {
    this.settings = { ...this.settings, ...settings };
    this.searchLookup.clear();
    this.webCatalogue.clear();
    return this.current();
  }

  current(): RateLimitSettings {
    return { ...this.settings };
  }

  /** The refusal for this request, or undefined when it is within the limit. */
  check(endpoint: Endpoint, now = Date.now()): EmulatorResponse | undefined {
    const { perMinute, ampPerMinute, windowMs } = this.settings;
    if (perMinute > 0 && SEARCH_LOOKUP.has(endpoint)) {
      return this.searchLookup.admit(perMinute, windowMs, now) > 0 ? empty(403) : undefined;
    }
    if (ampPerMinute > 0 && WEB_CATALOGUE.has(endpoint)) {
      const waitMs = this.webCatalogue.admit(ampPerMinute, windowMs, now);
      return waitMs > 0
        ? { status: 429, headers: { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) }, body: '' }
        : undefined;
    }
    return undefined;
  }
}
