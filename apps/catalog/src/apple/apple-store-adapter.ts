import { SEARCH_PAGE_SIZE, type ReviewSort } from '@appcat/contracts';
import type { AppleStoreConfig } from '../config.js';
import { EMPTY_LIST, listOf, type ListData, type QueryOf, type Review, type StoreAdapter } from '../store/store-adapter.js';
import type { UpstreamHttpClient } from '../upstream/upstream-http-client.js';
import { badResponse, isRecord } from '../upstream/upstream-failures.js';
import { AppleUrls } from './apple-urls.js';
import { ItunesApi, type ItunesRecord } from './itunes-api.js';
import { type AmpResource, WebCatalogue } from './web-catalogue.js';

/** Search has no offset upstream: fetch the most Apple gives once, then slice the page. */
const SEARCH_FETCH_LIMIT = 200;
const DEVELOPER_APPS_LIMIT = 200;
const SIMILAR_APPS = 'customers-also-bought-apps';

const isTrackId = (appId: string) => /^\d+$/.test(appId);

function relatedData(resource: AmpResource, relationship: string): AmpResource[] {
  const relationships = isRecord(resource.relationships) ? resource.relationships : {};
  const related = relationships[relationship];
  return isRecord(related) && Array.isArray(related.data) ? related.data.filter(isRecord) : [];
}

function resourceId(resource: AmpResource): string {
  return String(resource.id);
}

/** Newest first for "recent"; most voted first for "helpful", as Apple orders one app's feed. */
function compareReviews(sort: ReviewSort): (a: Review, b: Review) => number {
  const newestFirst = (a: Review, b: Review) => (Date.parse(b.updated) || 0) - (Date.parse(a.updated) || 0);
  if (sort === 'recent') return newestFirst;
  return (a, b) => b.voteSum - a.voteSum || b.voteCount - a.voteCount || newestFirst(a, b);
}

/**
 * Apple's App Store: iTunes Search/Lookup and the reviews feed for apps and developers, the web
 * catalogue for similar apps and bundles. Bundles have no reviews or similar items of their own; those
 * two routes are derived from the bundle's member apps.
 */
export class AppleStoreAdapter implements StoreAdapter {
  private readonly itunes: ItunesApi;
  private readonly web: WebCatalogue;
  private readonly urls: AppleUrls;

  constructor(config: AppleStoreConfig, http: UpstreamHttpClient) {
    this.urls = new AppleUrls(config);
    this.itunes = new ItunesApi(http, this.urls);
    this.web = new WebCatalogue(http, this.urls);
  }

  async searchApps(query: QueryOf<'apps.search'>): Promise<ListData> {
    const { results } = await this.itunes.search(query.term, query.country, query.lang, SEARCH_FETCH_LIMIT);
    const start = (query.page - 1) * SEARCH_PAGE_SIZE;
    return listOf(results.slice(start, start + SEARCH_PAGE_SIZE));
  }

  async getApp(query: QueryOf<'apps.get'>): Promise<ListData> {
    const app = await this.lookupApp(query.appId, query.country, query.lang);
    return app ? listOf([app]) : EMPTY_LIST;
  }

  async appReviews(query: QueryOf<'apps.reviews'>): Promise<ListData<Review>> {
    const trackId = await this.resolveTrackId(query.appId, query.country);
    if (!trackId) return EMPTY_LIST;
    return listOf(await this.itunes.reviewsPage(query.country, trackId, query.page, query.sort));
  }

  async similarApps(query: QueryOf<'apps.similar'>): Promise<ListData> {
    const trackId = await this.resolveTrackId(query.appId, query.country);
    if (!trackId) return EMPTY_LIST;
    const [app] = (await this.web.getResources(this.urls.ampApp(query.country, trackId, { include: SIMILAR_APPS, lang: query.lang }))) ?? [];
    return app ? listOf(relatedData(app, SIMILAR_APPS)) : EMPTY_LIST;
  }

  async searchBundles(query: QueryOf<'bundles.search'>): Promise<ListData> {
    const url = this.urls.ampSearch(query.country, query.term, {
      types: 'app-bundles',
      limit: SEARCH_PAGE_SIZE,
      offset: (query.page - 1) * SEARCH_PAGE_SIZE,
      lang: query.lang,
    });
    const document = await this.web.getDocument(url);
    if (document === undefined) return EMPTY_LIST;
    if (!isRecord(document.results)) throw badResponse('search results without results', url.host);
    const bundles = document.results['app-bundles'];
    return listOf(isRecord(bundles) && Array.isArray(bundles.data) ? bundles.data.filter(isRecord) : []);
  }

  async getBundle(query: QueryOf<'bundles.get'>): Promise<ListData> {
    const bundle = await this.bundle(query.bundleId, query.country, query.lang, true);
    return bundle ? listOf([bundle]) : EMPTY_LIST;
  }

  /** Page N of every member app's feed, merged into one list in the requested order. */
  async bundleReviews(query: QueryOf<'bundles.reviews'>): Promise<ListData<Review>> {
    const bundle = await this.bundle(query.bundleId, query.country, undefined, false);
    if (!bundle) return EMPTY_LIST;
    const members = relatedData(bundle, 'apps').map(resourceId);
    const pages = await Promise.all(members.map((id) => this.itunes.reviewsPage(query.country, id, query.page, query.sort)));
    return listOf(pages.flat().sort(compareReviews(query.sort)));
  }

  /** Apps customers also bought with any member, each once, members left out. */
  async similarBundles(query: QueryOf<'bundles.similar'>): Promise<ListData> {
    const bundle = await this.bundle(query.bundleId, query.country, query.lang, false);
    if (!bundle) return EMPTY_LIST;
    const members = relatedData(bundle, 'apps').map(resourceId);
    if (members.length === 0) return EMPTY_LIST;
    const apps = (await this.web.getResources(this.urls.ampApps(query.country, members, { include: SIMILAR_APPS, lang: query.lang }))) ?? [];
    const seen = new Set(members);
    const similar: AmpResource[] = [];
    for (const app of apps) {
      for (const other of relatedData(app, SIMILAR_APPS)) {
        const id = resourceId(other);
        if (seen.has(id)) continue;
        seen.add(id);
        similar.push(other);
      }
    }
    return listOf(similar);
  }

  /** The artist record, then its apps, as Lookup gives them; nothing when the id is not a developer. */
  async getDeveloper(query: QueryOf<'developers.get'>): Promise<ListData> {
    const { results } = await this.itunes.lookup('id', [query.developerId], { limit: DEVELOPER_APPS_LIMIT });
    const own = results.filter((r) => String(r.artistId) === query.developerId && (r.wrapperType === 'artist' || r.wrapperType === 'software'));
    return own[0]?.wrapperType === 'artist' ? listOf(own) : EMPTY_LIST;
  }

  /** The app's software record; Lookup also returns artists, and an artist's apps for an artist id. */
  private async lookupApp(appId: string, country: string, lang?: string): Promise<ItunesRecord | undefined> {
    const byTrackId = isTrackId(appId);
    const { results } = await this.itunes.lookup(byTrackId ? 'id' : 'bundleId', [appId], { country, lang });
    return results.find(
      (r) => r.wrapperType === 'software' && (byTrackId ? String(r.trackId) === appId : String(r.bundleId).toLowerCase() === appId.toLowerCase()),
    );
  }

  /** The feed and the web catalogue want the numeric track id; a bundle identifier costs a lookup. */
  private async resolveTrackId(appId: string, country: string): Promise<string | undefined> {
    if (isTrackId(appId)) return appId;
    const app = await this.lookupApp(appId, country);
    return app === undefined ? undefined : String(app.trackId);
  }

  private async bundle(bundleId: string, country: string, lang: string | undefined, withApps: boolean): Promise<AmpResource | undefined> {
    const resources = await this.web.getResources(this.urls.ampBundle(country, bundleId, { include: withApps ? 'apps' : undefined, lang }));
    return resources?.[0];
  }
}
