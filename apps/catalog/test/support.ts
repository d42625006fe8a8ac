import type { WireError } from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import type { StoreEmulator } from '@appcat/store-emulator';
import { readCatalogConfig, type CatalogConfig } from '../src/config.js';
import type { UpstreamHttpClient, UpstreamRequest, UpstreamResponse } from '../src/upstream/upstream-http-client.js';

/** Catalog settings pointing every upstream at one emulator (or any local server). */
export function configFor(upstreamUrl: string, env: Record<string, string> = {}): CatalogConfig {
  return readCatalogConfig({
    ITUNES_BASE_URL: upstreamUrl,
    APPLE_WEB_BASE_URL: upstreamUrl,
    APPLE_AMP_API_BASE_URL: upstreamUrl,
    NATS_SHUTDOWN_GRACE_MS: '0',
    ...env,
  });
}

/** Wraps a client and counts the requests made through it. */
export class CountingHttpClient implements UpstreamHttpClient {
  count = 0;
  constructor(private readonly inner: UpstreamHttpClient) {}

  get(request: UpstreamRequest): Promise<UpstreamResponse> {
    this.count++;
    return this.inner.get(request);
  }
}

/** The typed failure a promise rejects with; fails the test if it resolves or throws anything else. */
export async function wireErrorOf(promise: Promise<unknown>): Promise<WireError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof WireException) return error.getError() as WireError;
    throw error;
  }
  throw new Error('expected a WireException, got a result');
}

/** Upstream requests the emulator serves while `work` runs. */
export async function requestsDuring(emulator: StoreEmulator, work: () => Promise<unknown>): Promise<number> {
  const before = emulator.requestCount();
  await work();
  return emulator.requestCount() - before;
}
