import { UNTRACKED } from '../cache/provenance.js';
import type { Freshness, ResourceStore } from '../cache/resource-store.js';
import type { UpstreamHttpClient, UpstreamResponse } from '../upstream/upstream-http-client.js';
import { badResponse, expectSuccess, httpError, isRecord, parseJsonBody, throttled } from '../upstream/upstream-failures.js';
import { APPLE_AMP_UPSTREAM, APPLE_WEB_UPSTREAM } from './apple-upstreams.js';
import type { AppleUrls } from './apple-urls.js';
import { readBearerToken } from './bearer-token.js';

/** A JSON:API resource of the web catalogue, passed through as it is. */
export type AmpResource = Record<string, unknown> & { id?: unknown; type?: unknown; relationships?: unknown };

const TOKEN_KEY = 'apple:web-token';

/**
 * Client of the web catalogue (amp-api). Its bearer token is read from an apps.apple.com page once,
 * shared through the resource store (so one replica's read serves all) and kept in memory; when the
 * API answers 401 the token has expired or rotated, so it is read again once and the request repeated.
 */
export class WebCatalogue {
  private token?: Promise<string>;
  /** The value `token` resolved to, to tell a stale token from a fresh one. */
  private known?: string;

  constructor(
    private readonly http: UpstreamHttpClient,
    private readonly urls: AppleUrls,
    private readonly store: ResourceStore,
    private readonly tokenFreshness: Freshness,
  ) {}

  /** The `data` resources of a JSON:API document, or undefined when the API answers 404. */
  /** @param admitted a rate-limiter token was already taken (see {@link WebCatalogue.admit}). */
  async getResources(url: URL, admitted = false): Promise<AmpResource[] | undefined> {
    const document = await this.getDocument(url, admitted);
    if (document === undefined) return undefined;
    if (!Array.isArray(document.data)) throw badResponse('a web catalogue document without data', url.host);
    return document.data.filter(isRecord);
  }

  /** A JSON:API document, or undefined when the API answers 404. */
  async getDocument(url: URL, admitted = false): Promise<Record<string, unknown> | undefined> {
    let token = await this.currentToken();
    let response = await this.request(url, token, admitted);
    if (response.status === 401) {
      await this.forget(token);
      token = await this.currentToken();
      response = await this.request(url, token, false);
    }
    if (response.status === 404) return undefined;
    expectSuccess(response, url.host);
    const document = parseJsonBody(response, url.host);
    if (!isRecord(document)) throw badResponse('a web catalogue document that is not an object', url.host);
    return document;
  }

  /** Waits for a rate-limiter token for a request still gathering ids. */
  async admit(url: URL): Promise<void> {
    await this.http.admit?.(APPLE_AMP_UPSTREAM, url);
  }

  private request(url: URL, token: string, admitted: boolean): Promise<UpstreamResponse> {
    return this.http.get({ url, upstream: APPLE_AMP_UPSTREAM, admitted, headers: { authorization: `Bearer ${token}`, origin: this.urls.webOrigin(), accept: 'application/json' } });
  }

  /** Requests arriving while the page is being read share that one read. */
  private currentToken(): Promise<string> {
    if (!this.token) {
      // Not part of any reply's data. It is only read inside a load, which a cache-only reply never runs.
      const reading = this.store.get({ key: TOKEN_KEY, freshness: this.tokenFreshness, load: () => this.readToken() }, UNTRACKED).then((token) => {
        if (!token) throw badResponse('a page without the web catalogue token', this.urls.tokenPage().host);
        return token;
      });
      this.token = reading;
      reading.then(
        (token) => (this.known = token),
        () => {
          if (this.token === reading) this.token = undefined;
        },
      );
    }
    return this.token;
  }

  /** Drops the token after a 401, unless a concurrent request has already replaced it. */
  private async forget(stale: string): Promise<void> {
    if (this.known !== stale) return;
    this.token = undefined;
    this.known = undefined;
    await this.store.drop(TOKEN_KEY);
  }

  private async readToken(): Promise<string> {
    const url = this.urls.tokenPage();
    const page = await this.http.get({ url, upstream: APPLE_WEB_UPSTREAM, headers: { accept: 'text/html' } });
    const slowDown = throttled(page, url.host);
    if (slowDown) throw slowDown;
    if (page.status < 200 || page.status > 299) throw httpError(page, url.host);
    const token = readBearerToken(page.body);
    if (!token) throw badResponse('a page without the web catalogue token', url.host);
    return token;
  }
}
