import type { UpstreamHttpClient } from '../upstream/upstream-http-client.js';
import { badResponse, expectSuccess } from '../upstream/upstream-failures.js';
import { APPLE_CATALOGUE_UPSTREAM, APPLE_WEB_UPSTREAM } from './apple-upstreams.js';
import type { AppleUrls } from './apple-urls.js';
import { type AmpResource, readDocument, resourcesOf } from './web-catalogue.js';

/**
 * apps.apple.com asked as the site's own pages ask it, with a browser's User-Agent, `Origin` and
 * `Referer` (2026 reports: curl's agent got 429): the same-origin catalogue (`/api/apps/v1/catalog/…`,
 * no token) and the store pages themselves.
 */
export class SiteClient {
  constructor(
    private readonly http: UpstreamHttpClient,
    private readonly urls: AppleUrls,
    private readonly browserUserAgent: string,
  ) {}

  /** A same-origin catalogue document's `data`; undefined for a 404. */
  async catalogueResources(url: URL, referer: URL): Promise<AmpResource[] | undefined> {
    const document = await this.catalogueDocument(url, referer);
    return document === undefined ? undefined : resourcesOf(document, url.host);
  }

  async catalogueDocument(url: URL, referer: URL): Promise<Record<string, unknown> | undefined> {
    const response = await this.http.get({
      url,
      upstream: APPLE_CATALOGUE_UPSTREAM,
      headers: { ...this.browser(referer), accept: 'application/json' },
    });
    return readDocument(response, url.host);
  }

  /** A store page's HTML; undefined when the page does not exist there (404). */
  async page(url: URL): Promise<string | undefined> {
    const response = await this.http.get({
      url,
      upstream: APPLE_WEB_UPSTREAM,
      headers: { 'user-agent': this.browserUserAgent, accept: 'text/html' },
    });
    if (response.status === 404) return undefined;
    expectSuccess(response, url.host);
    if (response.body.trim() === '') throw badResponse('an empty store page', url.host);
    return response.body;
  }

  private browser(referer: URL): Record<string, string> {
    return { 'user-agent': this.browserUserAgent, origin: this.urls.webOrigin(), referer: referer.href };
  }
}
