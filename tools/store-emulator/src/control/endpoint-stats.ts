import { ENDPOINTS, type Endpoint } from './endpoints.js';

export interface EndpointStatsSnapshot {
  /** Upstream requests received since the last reset, control requests excluded. */
  requests: number;
  byEndpoint: Record<Endpoint, number>;
  /** Requests answered by an injected fault. */
  faulted: number;
  /** Requests refused by the emulated rate limit (403 empty / 429). */
  rateLimited: number;
}

/** Counts upstream requests per endpoint, so tests in other processes can count what a client sent. */
export class EndpointStats {
  private snapshot = EndpointStats.empty();

  private static empty(): EndpointStatsSnapshot {
    return {
      requests: 0,
      byEndpoint: Object.fromEntries(ENDPOINTS.map((e) => [e, 0])) as Record<Endpoint, number>,
      faulted: 0,
      rateLimited: 0,
    };
  }

  count(endpoint: Endpoint): void {
    this.snapshot.requests++;
    this.snapshot.byEndpoint[endpoint]++;
  }

  countFault(): void {
    this.snapshot.faulted++;
  }

  countRateLimited(): void {
    this.snapshot.rateLimited++;
  }

  read(): EndpointStatsSnapshot {
    return { ...this.snapshot, byEndpoint: { ...this.snapshot.byEndpoint } };
  }

  reset(): void {
    this.snapshot = EndpointStats.empty();
  }
}
