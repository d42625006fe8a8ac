import { type Dispatcher, fetch as undiciFetch, ProxyAgent } from 'undici';
import type { Egress } from '../config.js';
import { upstreamNetworkFailure } from './upstream-failures.js';

export interface UpstreamRequest {
  url: URL;
  headers?: Record<string, string>;
  /**
   * Which upstream this is, for its rate limit and circuit breaker (e.g. "itunes"); the URL's host
   * when absent. Named rather than derived from the host because one emulator can play every host.
   */
  upstream?: string;
  /** A rate-limiter token was already taken for this request (by a batch that waited for it). */
  admitted?: boolean;
  /** The identity the request goes out as (set by the rate limiter that granted its token); through its proxy when it has one. */
  egress?: Egress;
  /** A form body (`application/x-www-form-urlencoded`): the request is a POST, as batchexecute reads are. */
  form?: string;
  /** Answer a redirect as it is, rather than follow it (a store that redirects to a consent page). */
  redirect?: 'manual';
  /**
   * The store's own ways of saying "slow down" in an answer that is not a 429 (Google Play's captcha,
   * its consent redirect, an error page served as 200): a short description, or undefined. The guard
   * treats one as throttling (its breaker opens, nothing is cached, the call fails).
   */
  refusal?(response: UpstreamResponse): string | undefined;
}

/** Whatever the upstream answered, any status; only failures to get an answer throw. */
export interface UpstreamResponse {
  status: number;
  headers: Headers;
  body: string;
}

/**
 * The one way the store adapters reach the network. Caching, merging identical requests, throttling
 * per host and circuit breaking belong in implementations that wrap this one; adapters do not change.
 */
export interface UpstreamHttpClient {
  /** Throws a WireException (UpstreamTimeout, UpstreamUnreachable) when no answer arrives. */
  get(request: UpstreamRequest): Promise<UpstreamResponse>;
  /**
   * Takes a rate-limiter token for a request to `url` that is yet to be built, waiting for it if it
   * must; throws UpstreamThrottled when refused. A batch waits here while it keeps gathering ids,
   * then sends with `admitted`. Clients without a limiter leave it out.
   */
  admit?(upstream: string, url: URL): Promise<void>;
}

export const UPSTREAM_HTTP_CLIENT = Symbol('UpstreamHttpClient');

/**
 * Fetch with one deadline for headers and body; a request whose egress is a proxy goes through it
 * (undici's ProxyAgent, one per proxy, kept for the process's life).
 */
export class FetchUpstreamHttpClient implements UpstreamHttpClient {
  private readonly proxies = new Map<string, Dispatcher>();

  constructor(private readonly options: { timeoutMs: number; userAgent: string }) {}

  async get(request: UpstreamRequest): Promise<UpstreamResponse> {
    const headers: Record<string, string> = { 'user-agent': this.options.userAgent, accept: '*/*' };
    if (request.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
    const init = {
      method: request.form === undefined ? 'GET' : 'POST',
      body: request.form,
      redirect: request.redirect ?? ('follow' as const),
      headers: { ...headers, ...request.headers },
      signal: AbortSignal.timeout(this.options.timeoutMs),
    };
    try {
      const proxyUrl = request.egress?.proxyUrl;
      // Node's own fetch without a proxy; undici's fetch with its ProxyAgent (the two must come from one undici).
      const response = proxyUrl
        ? await undiciFetch(request.url, { ...init, dispatcher: this.proxy(proxyUrl) })
        : await fetch(request.url, init);
      return { status: response.status, headers: response.headers as Headers, body: await response.text() };
    } catch (error) {
      throw upstreamNetworkFailure(error, request.url.host, this.options.timeoutMs);
    }
  }

  private proxy(url: string): Dispatcher {
    let agent = this.proxies.get(url);
    if (!agent) this.proxies.set(url, (agent = new ProxyAgent(url)));
    return agent;
  }

  /** Closes the proxies' connections. */
  async close(): Promise<void> {
    await Promise.all([...this.proxies.values()].map((agent) => agent.close()));
    this.proxies.clear();
  }
}
