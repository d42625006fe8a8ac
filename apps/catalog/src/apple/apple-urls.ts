import { ErrorCode, type ReviewSort } from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import type { AppleStoreConfig } from '../config.js';

/**
 * A value placed in a URL path. Percent-encoding keeps "/", "?" and "#" from ending the segment; dot
 * segments are refused because URL parsers resolve "..", even encoded, which would change the path.
 */
export function pathSegment(value: string): string {
  if (value === '' || value === '.' || value === '..') throw new WireException(ErrorCode.InvalidArgument, 'invalid identifier');
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

/** Every upstream URL the Apple adapter requests, built from configured base URLs only. */
export class AppleUrls {
  constructor(private readonly config: Pick<AppleStoreConfig, 'itunesBaseUrl' | 'webBaseUrl' | 'ampApiBaseUrl' | 'tokenPagePath'>) {}

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
    return new URL(`${this.config.itunesBaseUrl}/${pathSegment(country)}/rss/customerreviews/${options.join('/')}/xml`);
  }

  tokenPage(): URL {
    return new URL(`${this.config.webBaseUrl}${this.config.tokenPagePath}`);
  }

  webOrigin(): string {
    return new URL(this.config.webBaseUrl).origin;
  }

  ampApp(country: string, id: string, params: { include?: string; lang?: string }): URL {
    return withQuery(this.config.ampApiBaseUrl, `/v1/catalog/${pathSegment(country)}/apps/${pathSegment(id)}`, { platform: 'web', include: params.include, l: params.lang });
  }

  ampApps(country: string, ids: string[], params: { include?: string; lang?: string }): URL {
    return withQuery(this.config.ampApiBaseUrl, `/v1/catalog/${pathSegment(country)}/apps`, { ids: ids.join(','), platform: 'web', include: params.include, l: params.lang });
  }

  ampBundle(country: string, id: string, params: { include?: string; lang?: string }): URL {
    return withQuery(this.config.ampApiBaseUrl, `/v1/catalog/${pathSegment(country)}/app-bundles/${pathSegment(id)}`, { platform: 'web', include: params.include, l: params.lang });
  }

  ampBundles(country: string, ids: string[], params: { include?: string; lang?: string }): URL {
    return withQuery(this.config.ampApiBaseUrl, `/v1/catalog/${pathSegment(country)}/app-bundles`, { ids: ids.join(','), platform: 'web', include: params.include, l: params.lang });
  }

  ampSearch(country: string, term: string, params: { types: string; limit: number; offset: number; lang?: string }): URL {
    return withQuery(this.config.ampApiBaseUrl, `/v1/catalog/${pathSegment(country)}/search`, {
      term,
      types: params.types,
      limit: String(params.limit),
      offset: String(params.offset),
      platform: 'web',
      l: params.lang,
    });
  }
}
