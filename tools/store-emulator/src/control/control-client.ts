import type { CatalogueListing } from './catalogue-listing.js';
import type { DriftSettings } from './drift.js';
import type { EndpointStatsSnapshot } from './endpoint-stats.js';
import type { ActiveFault, FaultSpec } from './fault-book.js';
import type { RateLimitSettings } from './rate-limit.js';

/** The control API over HTTP, for tests and benchmarks whose emulator runs in another process. */
export class EmulatorControlClient {
  constructor(private readonly baseUrl: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.baseUrl}/__emulator/${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`emulator control ${method} ${path} answered ${response.status}: ${text}`);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  async addFaults(...faults: FaultSpec[]): Promise<ActiveFault[]> {
    return (await this.call<{ faults: ActiveFault[] }>('POST', 'faults', faults)).faults;
  }

  clearFaults(): Promise<void> {
    return this.call('DELETE', 'faults');
  }

  stats(): Promise<EndpointStatsSnapshot> {
    return this.call('GET', 'stats');
  }

  resetStats(): Promise<void> {
    return this.call('DELETE', 'stats');
  }

  setRateLimit(settings: Partial<RateLimitSettings>): Promise<RateLimitSettings> {
    return this.call('PUT', 'rate-limit', settings);
  }

  /** Makes answers drift from today's shapes; fields not given keep their value. */
  setDrift(settings: Partial<DriftSettings>): Promise<DriftSettings> {
    return this.call('PUT', 'drift', settings);
  }

  catalogue(): Promise<CatalogueListing> {
    return this.call('GET', 'catalogue');
  }
}
