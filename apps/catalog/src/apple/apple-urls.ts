import { ErrorCode, type ReviewSort } from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import type { AppleStoreConfig } from '../config.js';

/**
 * A value placed in a URL path. Percent-encoding keeps "/", "?" and "#" from ending the segment; dot
 * segments are refused because URL parsers resolve "..", even encoded, which would change the path.
 */
export function pathSegment(value: string): string {
  if (value === '' || value === '.' || value === '..')
    throw new WireException(ErrorCode.InvalidArgument, 'invalid identifier');
  return encodeURIComponent(value);
}

function withQuery(base: string, path: string, params: Record<string, string | undefined>): URL {
  const url = new URL(`${base}${path}`);
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) query.set(key, value);
  url.search = query.toString();
  return url;
}

/** iTunes wants "en_us" where the gateway normalised to "en-us". */
function itunesLang(lang: string | undefined): string | undefined {
  return lang?.replace(/-/g, '_');
}

const FEED_SORT: Record<ReviewSort, string> = { recent: 'mostRecent', helpful: 'mostHelpful' };

/**
 * What the web catalogue calls that work today send (maintained scrapers, 2025–2026): the iPhone
 * platform plus every other one, so an app or bundle sold for any device is found. `platform=web`
 * was the old site's.
 */
export const AMP_PLATFORM = {
  platform: 'iphone',
  additionalPlatforms: 'appletv,ipad,iphone,mac,realityDevice,watch',
} as const;

/** How many customers-also-bought apps the web catalogue is asked for (`sparseLimit`). */
export const SIMILAR_APPS_LIMIT = 40;
const SIMILAR_SPARSE_LIMIT = 'sparseLimit[apps:customers-also-bought-apps]';

type AmpParams = { include?: string; lang?: string };

function ampQuery(
  params: AmpParams,
  extra: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  const similar = params.include?.split(',').includes('customers-also-bought-apps')
    ? { [SIMILAR_SPARSE_LIMIT]: String(SIMILAR_APPS_LIMIT) }
    : {};
  return { ...extra, ...AMP_PLATFORM, include: params.include, ...similar, l: params.lang };
}

/** Every upstream URL the Apple adapter requests, built from configured base URLs only. */
export class AppleUrls {
  constructor(
    private readonly config: Pick<AppleStoreConfig, 'itunesBaseUrl' | 'webBaseUrl' | 'ampApiBaseUrl' | 'tokenPagePath'>,
  ) {}

  search(term: string, country: string, lang: string | undefined, limit: number): URL {
    return withQuery(this.config.itunesBaseUrl, '/search', {
      term,
      country,
      media: 'software',
      entity: 'software',
      limit: String(limit),
      lang: itunesLang(lang),
    });
  }

  lookup(key: 'id' | 'bundleId', values: string[], options: { country?: string; lang?: string; limit?: number }): URL {
    return withQuery(this.config.itunesBaseUrl, '/lookup', {
      [key]: values.join(','),
      country: options.country,
      entity: 'software',
      limit: options.limit === undefined ? undefined : String(options.limit),
      lang: itunesLang(options.lang),
    });
  }

  reviewsFeed(country: string, trackId: string, page: number, sort: ReviewSort): URL {
    const options = [`page=${pathSegment(String(page))}`, `id=${pathSegment(trackId)}`, `sortby=${FEED_SORT[sort]}`];
    return new URL(
      `${this.config.itunesBaseUrl}/${pathSegment(country)}/rss/customerreviews/${options.join('/')}/json`,
    );
  }

  tokenPage(): URL {
    return new URL(`${this.config.webBaseUrl}${this.config.tokenPagePath}`);
  }

  webOrigin(): string {
    return new URL(this.config.webBaseUrl).origin;
  }

  ampApp(country: string, id: string, params: AmpParams): URL {
    return withQuery(
      this.config.ampApiBaseUrl,
      `/v1/catalog/${pathSegment(country)}/apps/${pathSegment(id)}`,
      ampQuery(params),
    );
  }

  ampApps(country: string, ids: string[], params: AmpParams): URL {
    return withQuery(
      this.config.ampApiBaseUrl,
      `/v1/catalog/${pathSegment(country)}/apps`,
      ampQuery(params, { ids: ids.join(',') }),
    );
  }

  ampBundle(country: string, id: string, params: AmpParams): URL {
    return withQuery(
      this.config.ampApiBaseUrl,
      `/v1/catalog/${pathSegment(country)}/app-bundles/${pathSegment(id)}`,
      ampQuery(params),
    );
  }

  ampBundles(country: string, ids: string[], params: AmpParams): URL {
    return withQuery(
      this.config.ampApiBaseUrl,
      `/v1/catalog/${pathSegment(country)}/app-bundles`,
      ampQuery(params, { ids: ids.join(',') }),
    );
  }

  ampSearch(
    country: string,
    term: string,
    params: { types: string; limit: number; offset: number; lang?: string },
  ): URL {
    return withQuery(
      this.config.ampApiBaseUrl,
      `/v1/catalog/${pathSegment(country)}/search`,
      ampQuery(
        { lang: params.lang },
        { term, types: params.types, limit: String(params.limit), offset: String(params.offset) },
      ),
    );
  }
}
