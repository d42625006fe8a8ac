import { readConfig, readNatsConfig, type NatsConfig } from '@appcat/config';

export const CATALOG_STORES = ['apple'] as const;
export type CatalogStore = (typeof CATALOG_STORES)[number];

export interface AppleStoreConfig {
  /** iTunes Search, Lookup and the customer reviews feed. */
  itunesBaseUrl: string;
  /** apps.apple.com, whose pages carry the web catalogue's bearer token. */
  webBaseUrl: string;
  /** The web catalogue (amp-api, JSON:API). */
  ampApiBaseUrl: string;
  /** Page of webBaseUrl the token is read from; any app page carries it. */
  tokenPagePath: string;
  /** The reviews feed answers only iTunes-like clients. */
  userAgent: string;
}

export interface CatalogConfig {
  nats: NatsConfig;
  store: CatalogStore;
  apple: AppleStoreConfig;
  /** Budget of one upstream HTTP request, headers and body, in ms. */
  upstreamTimeoutMs: number;
}

export const DEFAULT_UPSTREAM_USER_AGENT = 'iTunes/12.13 (Macintosh; OS X 14.5) AppleWebKit/618.2.12';

export function readCatalogConfig(env: Record<string, string | undefined> = process.env): CatalogConfig {
  return readConfig((e) => {
    const tokenPagePath = e.string('APPLE_TOKEN_PAGE_PATH', '/us/app/facebook/id284882215');
    // A path only: "//host" or a scheme would let the setting move the request to another host.
    if (!/^\/(?!\/)[^\s?#\\]*$/.test(tokenPagePath)) e.fail(`APPLE_TOKEN_PAGE_PATH must be a path starting with one "/", got ${JSON.stringify(tokenPagePath)}`);
    return {
      nats: readNatsConfig(e),
      store: e.oneOf('CATALOG_STORE', 'apple', CATALOG_STORES),
      apple: {
        itunesBaseUrl: e.url('ITUNES_BASE_URL', 'http://127.0.0.1:4010'),
        webBaseUrl: e.url('APPLE_WEB_BASE_URL', 'http://127.0.0.1:4010'),
        ampApiBaseUrl: e.url('APPLE_AMP_API_BASE_URL', 'http://127.0.0.1:4010'),
        tokenPagePath,
        userAgent: e.string('UPSTREAM_USER_AGENT', DEFAULT_UPSTREAM_USER_AGENT),
      },
      upstreamTimeoutMs: e.int('UPSTREAM_TIMEOUT_MS', 5000, { min: 100, max: 120_000 }),
    };
  }, env);
}
