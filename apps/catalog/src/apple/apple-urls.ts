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

/** The order of the feed's path options. */
export type FeedForm = 'page-first' | 'id-first';

/** The platforms every catalogue request names, so an app or bundle sold for any device is found. */
const ADDITIONAL_PLATFORMS = 'appletv,ipad,iphone,mac,realityDevice,watch';

/**
 * What amp-api calls that work today send (maintained scrapers, 2025–2026): the iPhone platform plus
 * every other one.
 */
export const AMP_PLATFORM = { platform: 'iphone', additionalPlatforms: ADDITIONAL_PLATFORMS } as const;

/** The same-origin catalogue answers 400 without `platform=web` (2026 reports); `additionalPlatforms` fills `platformAttributes`. */
export const SAME_ORIGIN_PLATFORM = { platform: 'web', additionalPlatforms: ADDITIONAL_PLATFORMS } as const;

/** How many customers-also-bought apps the web catalogue is asked for (`sparseLimit`). */
export const SIMILAR_APPS_LIMIT = 40;
const SIMILAR_SPARSE_LIMIT = 'sparseLimit[apps:customers-also-bought-apps]';

type CatalogueParams = { include?: string; lang?: string };

/**
 * URLs of one door to Apple's catalogue (JSON:API): amp-api (`{amp}/v1/catalog/{cc}/…`, bearer token)
 * or the site's same-origin path (`{web}/api/apps/v1/catalog/{cc}/…`, no token). Both take the same
 * paths and parameters but their platform.
 */
export class CatalogueUrls {
  constructor(
    private readonly base: string,
    private readonly platform: Readonly<Record<string, string>>,
  ) {}

  app(country: string, id: string, params: CatalogueParams): URL {
    return this.url(country, `apps/${pathSegment(id)}`, params);
  }

  apps(country: string, ids: string[], params: CatalogueParams): URL {
    return this.url(country, 'apps', params, { ids: ids.join(',') });
  }

  bundle(country: string, id: string, params: CatalogueParams): URL {
    return this.url(country, `app-bundles/${pathSegment(id)}`, params);
  }

  bundles(country: string, ids: string[], params: CatalogueParams): URL {
    return this.url(country, 'app-bundles', params, { ids: ids.join(',') });
  }

  developer(country: string, id: string, params: CatalogueParams): URL {
    return this.url(country, `developers/${pathSegment(id)}`, params);
  }

  /** One page of an app's reviews: `sort` is `recent` or `mosthelpful`, as the site sends it. */
  reviews(
    country: string,
    id: string,
    params: { offset: number; limit: number; sort: 'recent' | 'mosthelpful'; lang?: string },
  ): URL {
    return this.url(
      country,
      `apps/${pathSegment(id)}/reviews`,
      { lang: params.lang },
      { offset: String(params.offset), limit: String(params.limit), sort: params.sort },
    );
  }

  search(country: string, term: string, params: { types: string; limit: number; offset: number; lang?: string }): URL {
    return this.url(
      country,
      'search',
      { lang: params.lang },
      { term, types: params.types, limit: String(params.limit), offset: String(params.offset) },
    );
  }

  private url(country: string, path: string, params: CatalogueParams, extra: Record<string, string> = {}): URL {
    const similar = params.include?.split(',').includes('customers-also-bought-apps')
      ? { [SIMILAR_SPARSE_LIMIT]: String(SIMILAR_APPS_LIMIT) }
      : {};
    return withQuery(this.base, `/${pathSegment(country)}/${path}`, {
      ...extra,
      ...this.platform,
      include: params.include,
      ...similar,
      l: params.lang,
    });
  }
}

/** Every upstream URL the Apple adapter requests, built from configured base URLs only. */
export class AppleUrls {
  readonly amp: CatalogueUrls;
  readonly sameOrigin: CatalogueUrls;

  constructor(
    private readonly config: Pick<AppleStoreConfig, 'itunesBaseUrl' | 'webBaseUrl' | 'ampApiBaseUrl' | 'tokenPagePath'>,
  ) {
    this.amp = new CatalogueUrls(`${config.ampApiBaseUrl}/v1/catalog`, AMP_PLATFORM);
    this.sameOrigin = new CatalogueUrls(`${config.webBaseUrl}/api/apps/v1/catalog`, SAME_ORIGIN_PLATFORM);
  }

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

  /**
   * A page of the customer reviews feed, `/json`, in one of its URL forms: `page=…/id=…/sortby=…`
   * (app-store-scraper, appvox) or `id=…/page=…/sortby=…` (qiaomu-app-review-insights, 2026), since
   * Apple has answered one form empty and not the other (Shub3am/BrandPulse, 2026-09).
   */
  reviewsFeed(country: string, trackId: string, page: number, sort: ReviewSort, form: FeedForm = 'page-first'): URL {
    const pageOption = `page=${pathSegment(String(page))}`;
    const idOption = `id=${pathSegment(trackId)}`;
    const options = form === 'page-first' ? [pageOption, idOption] : [idOption, pageOption];
    return new URL(
      `${this.config.itunesBaseUrl}/${pathSegment(country)}/rss/customerreviews/${options.join('/')}/sortby=${FEED_SORT[sort]}/json`,
    );
  }

  /** An app's or a bundle's page on apps.apple.com. */
  storePage(country: string, kind: 'app' | 'app-bundle', id: string): URL {
    return new URL(`${this.config.webBaseUrl}/${pathSegment(country)}/${kind}/id${pathSegment(id)}`);
  }

  tokenPage(): URL {
    return new URL(`${this.config.webBaseUrl}${this.config.tokenPagePath}`);
  }

  webOrigin(): string {
    return new URL(this.config.webBaseUrl).origin;
  }
}
