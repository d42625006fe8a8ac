import { UNTRACKED } from '../cache/provenance.js';
import type { Freshness, ResourceStore } from '../cache/resource-store.js';
import type { UpstreamHttpClient, UpstreamResponse } from '../upstream/upstream-http-client.js';
import {
  badResponse,
  expectSuccess,
  httpError,
  isRecord,
  parseJsonBody,
  quoteUpstreamText,
  throttled,
} from '../upstream/upstream-failures.js';
import { APPLE_AMP_UPSTREAM, APPLE_WEB_UPSTREAM } from './apple-upstreams.js';
import type { AppleUrls } from './apple-urls.js';
import {
  findBearerToken,
  findJwt,
  metaConfigToken,
  moduleScriptSrc,
  serializedServerData,
  tokenExpiry,
} from './bearer-token.js';

/** A JSON:API resource of the web catalogue, passed through as it is. */
export type AmpResource = Record<string, unknown> & { id?: unknown; type?: unknown; relationships?: unknown };

/**
 * One type's results of a web catalogue search. The API groups results by type under `results`
 * (`results["app-bundles"].data`), leaving out types without matches, so `{}` is "nothing found". Any
 * other grouping is an answer we cannot read, never an empty list.
 */
export function searchGroup(
  document: Record<string, unknown>,
  type: string,
  asked: readonly string[],
  host: string,
): AmpResource[] {
  const { results } = document;
  if (!isRecord(results)) throw badResponse('search results without results', host);
  const unknown = Object.keys(results).filter((key) => !asked.includes(key));
  if (unknown.length > 0)
    throw badResponse(
      `search results grouped by an unknown type (${quoteUpstreamText(unknown.slice(0, 3).join(', '))})`,
      host,
    );
  const group = results[type];
  if (group === undefined) return [];
  if (!isRecord(group) || !Array.isArray(group.data))
    throw badResponse(`search results whose ${type} group has no data`, host);
  return group.data.filter(isRecord);
}

/** The resources a JSON:API relationship holds (none when absent). */
export function relatedData(resource: AmpResource, relationship: string): AmpResource[] {
  const relationships = isRecord(resource.relationships) ? resource.relationships : {};
  const related = relationships[relationship];
  return isRecord(related) && Array.isArray(related.data) ? related.data.filter(isRecord) : [];
}

const TOKEN_KEY = 'apple:web-token';
/** A token this close to its `exp` is read again before use rather than sent to expire mid-request. */
const EXPIRY_MARGIN_MS = 60_000;

/** A JSON:API document's `data` resources. */
export function resourcesOf(document: Record<string, unknown>, host: string): AmpResource[] {
  if (!Array.isArray(document.data)) throw badResponse('a web catalogue document without data', host);
  return document.data.filter(isRecord);
}

/** A catalogue answer as a JSON:API document; undefined for a 404 (no such item there). */
export function readDocument(response: UpstreamResponse, host: string): Record<string, unknown> | undefined {
  if (response.status === 404) return undefined;
  expectSuccess(response, host);
  const document = parseJsonBody(response, host);
  if (!isRecord(document)) throw badResponse('a web catalogue document that is not an object', host);
  return document;
}

/** A page that carries no token we can use is not read again for this long (no page read per request). */
export const NO_TOKEN_MEMO_MS = 60_000;

/**
 * Client of the web catalogue (amp-api). Its bearer token is read from apps.apple.com (a store page:
 * its meta configuration, its serialized data, or the module script it loads) once, shared through the
 * resource store (so one replica's read serves all) and kept in memory. It is read again when its `exp`
 * is near, and when the API answers 401 (expired or rotated early), in which case the request is
 * repeated once. A page that carries no token, or an expired one, is a failure remembered for a
 * minute (NO_TOKEN_MEMO_MS), never a loop of page reads.
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

  /**
   * The `data` resources of a JSON:API document, or undefined when the API answers 404.
   * @param admitted a rate-limiter token was already taken (see {@link WebCatalogue.admit}).
   */
  async getResources(url: URL, admitted = false): Promise<AmpResource[] | undefined> {
    const document = await this.getDocument(url, admitted);
    return document === undefined ? undefined : resourcesOf(document, url.host);
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
    return readDocument(response, url.host);
  }

  /** Waits for a rate-limiter token for a request still gathering ids. */
  async admit(url: URL): Promise<void> {
    await this.http.admit?.(APPLE_AMP_UPSTREAM, url);
  }

  private request(url: URL, token: string, admitted: boolean): Promise<UpstreamResponse> {
    return this.http.get({
      url,
      upstream: APPLE_AMP_UPSTREAM,
      admitted,
      headers: { authorization: `Bearer ${token}`, origin: this.urls.webOrigin(), accept: 'application/json' },
    });
  }

  /** Requests arriving while the page is being read share that one read. */
  private async currentToken(): Promise<string> {
    const known = this.known;
    if (known !== undefined && (tokenExpiry(known) ?? Infinity) <= Date.now() + EXPIRY_MARGIN_MS)
      await this.forget(known);
    return this.sharedToken();
  }

  private sharedToken(): Promise<string> {
    if (!this.token) {
      // Not part of any reply's data. It is only read inside a load, which a cache-only reply never runs.
      const reading = this.store
        .get({ key: TOKEN_KEY, freshness: this.tokenFreshness, load: () => this.readToken() }, UNTRACKED)
        .then((token) => {
          if (!token) throw badResponse('a store page that carries no web catalogue token', this.urls.tokenPage().host);
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

  /** The token the page carries, wherever it is; undefined (remembered a minute) when it carries none we can use. */
  private async readToken(): Promise<string | undefined> {
    const pageUrl = this.urls.tokenPage();
    const page = await this.getWebText(pageUrl, 'text/html');
    const token =
      metaConfigToken(page) ?? findJwt(serializedServerData(page)) ?? (await this.moduleScriptToken(page, pageUrl));
    if (!token) return undefined;
    // Sending an expired token would only buy a 401 and another page read.
    return (tokenExpiry(token) ?? Infinity) <= Date.now() ? undefined : token;
  }

  private async moduleScriptToken(page: string, pageUrl: URL): Promise<string | undefined> {
    const src = moduleScriptSrc(page);
    if (!src) return undefined;
    const scriptUrl = new URL(src, pageUrl);
    // Only the configured site is asked: a page pointing elsewhere has changed beyond what we read.
    if (scriptUrl.origin !== pageUrl.origin)
      throw badResponse('a store page whose module script is on another host', pageUrl.host);
    return findBearerToken(await this.getWebText(scriptUrl, '*/*'));
  }

  private async getWebText(url: URL, accept: string): Promise<string> {
    const response = await this.http.get({ url, upstream: APPLE_WEB_UPSTREAM, headers: { accept } });
    const slowDown = throttled(response, url.host);
    if (slowDown) throw slowDown;
    if (response.status < 200 || response.status > 299) throw httpError(response, url.host);
    return response.body;
  }
}
