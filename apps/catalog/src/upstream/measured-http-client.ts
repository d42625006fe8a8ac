import { type CatalogMetrics } from '@appcat/ops';
import { WireException } from '@appcat/microservice';
import type { UpstreamHttpClient, UpstreamRequest, UpstreamResponse } from './upstream-http-client.js';

/** Times every request that reaches the network, by upstream, and counts failures by code. */
export class MeasuredUpstreamHttpClient implements UpstreamHttpClient {
  constructor(
    private readonly inner: UpstreamHttpClient,
    private readonly metrics: CatalogMetrics,
  ) {}

  async get(request: UpstreamRequest): Promise<UpstreamResponse> {
    const host = request.upstream ?? request.url.host;
    const started = performance.now();
    try {
      const response = await this.inner.get(request);
      this.metrics.upstreamSeconds.observe(
        { host, outcome: String(response.status) },
        (performance.now() - started) / 1000,
      );
      if (response.status >= 400) this.metrics.upstreamErrors.inc({ host, code: `HTTP_${response.status}` });
      return response;
    } catch (error) {
      const code = error instanceof WireException ? error.code : 'error';
      this.metrics.upstreamSeconds.observe({ host, outcome: code }, (performance.now() - started) / 1000);
      this.metrics.upstreamErrors.inc({ host, code });
      throw error;
    }
  }
}
