import { CHART_PAGE_SIZE, SEARCH_PAGE_SIZE, type ReviewSort } from '@appcat/contracts';
import { type ResourceTrace, UNTRACKED } from '../cache/provenance.js';
import type { RefreshJob } from '../cache/refresh-queue.js';
import { type ResourceRequest, type ResourceStore, UncachedResources } from '../cache/resource-store.js';
import type { AppleStoreConfig, CacheTtls } from '../config.js';
import type { SourceObserver } from '../upstream/source-chain.js';
import {
  EMPTY_LIST,
  listOf,
  type ListData,
  type QueryOf,
  type Review,
  type StoreAdapter,
} from '../store/store-adapter.js';
import type { UpstreamHttpClient } from '../upstream/upstream-http-client.js';
import { badResponse } from '../upstream/upstream-failures.js';
import { AppleResources, type BatchSettings } from './apple-resources.js';
import { AppleUrls } from './apple-urls.js';
import { AppleStoreFacts } from './facts/store-facts.js';
import { ItunesApi } from './itunes-api.js';
import { SiteClient } from './site-client.js';
import type { DriftNote } from './reviews-feed.js';
import { type AmpResource, NO_TOKEN_MEMO_MS, relatedData, WebCatalogue } from './web-catalogue.js';

const isTrackId = (appId: string) => /^\d+$/.test(appId);

function resourceId(resource: AmpResource): string {
  return String(resource.id);
}

/** Newest first for "recent"; most voted first for "helpful", as Apple orders one app's feed. */
function compareReviews(sort: ReviewSort): (a: Review, b: Review) => number {
  const newestFirst = (a: Review, b: Review) => (Date.parse(b.updated) || 0) - (Date.parse(a.updated) || 0);
  if (sort === 'recent') return newestFirst;
  return (a, b) => b.voteSum - a.voteSum || b.voteCount - a.voteCount || newestFirst(a, b);
}

export interface AppleStoreAdapterOptions {
  /** Where upstream resources are cached; default: none, every call asks Apple. */
  store?: ResourceStore;
  ttl?: CacheTtls;
  batch?: BatchSettings;
  /** Told about what an answer held that we read past (the app listed among its reviews): the upstream check's drift. */
  onDrift?: DriftNote;
  /** Told about every source tried and what became of it (appcat_upstream_source_total). */
  onSource?: SourceObserver;
}

/** TTLs only matter with a real cache; these are the documented defaults. */
const DEFAULT_TTLS: CacheTtls = {
  detailsSeconds: 43_200,
  listsSeconds: 86_400,
  searchSeconds: 7200,
  recentReviewsSeconds: 1800,
  reviewsSeconds: 21_600,
  chartsSeconds: 3600,
  notFoundSeconds: 3600,
  tokenSeconds: 21_600,
  staleSeconds: 604_800,
};

/**
 * Apple's App Store: iTunes Search/Lookup and the reviews feed for apps and developers, the web
 * catalogue for similar apps and bundles. Bundles have no reviews or similar items of their own; those
 * two routes are derived from the bundle's member apps, reusing the cached resources of those apps.
 */
export class AppleStoreAdapter implements StoreAdapter {
  private readonly resources: AppleResources;
  private readonly facts: AppleStoreFacts;

  constructor(config: AppleStoreConfig, http: UpstreamHttpClient, options: AppleStoreAdapterOptions = {}) {
    const urls = new AppleUrls(config);
    const store = options.store ?? new UncachedResources();
    const ttl = options.ttl ?? DEFAULT_TTLS;
    const tokenFreshness = { freshMs: ttl.tokenSeconds * 1000, notFoundMs: NO_TOKEN_MEMO_MS, staleMs: 0 };
    const web = new WebCatalogue(http, urls, store, tokenFreshness);
    const site = new SiteClient(http, urls, config.browserUserAgent);
    this.resources = new AppleResources(
      { itunes: new ItunesApi(http, urls, options.onDrift), web, site, urls },
      store,
      ttl,
      options.batch ?? { windowMs: 0, maxIds: 100 },
      config.sources,
      options.onSource,
    );
    this.facts = new AppleStoreFacts({ http, web, site, urls }, config, store, ttl, config.sources, options.onSource);
  }

  refreshRequest(job: RefreshJob): ResourceRequest<unknown> | undefined {
    return this.resources.kinds.fromJob(job) ?? this.facts.kinds.fromJob(job);
  }

  upstreamsOf(resourceKey: string): readonly string[] | undefined {
    return this.resources.kinds.upstreamsOf(resourceKey) ?? this.facts.kinds.upstreamsOf(resourceKey);
  }

  async searchApps(query: QueryOf<'apps.search'>, trace: ResourceTrace = UNTRACKED): Promise<ListData> {
    const results = await this.resources.searchApps(query.term, query.country, query.lang, trace);
    const start = (query.page - 1) * SEARCH_PAGE_SIZE;
    return listOf(results.slice(start, start + SEARCH_PAGE_SIZE));
  }

  async getApp(query: QueryOf<'apps.get'>, trace: ResourceTrace = UNTRACKED): Promise<ListData> {
    const app = await this.resources.app(query.appId, query.country, query.lang, trace);
    return app ? listOf([app]) : EMPTY_LIST;
  }

  async appReviews(query: QueryOf<'apps.reviews'>, trace: ResourceTrace = UNTRACKED): Promise<ListData<Review>> {
    const trackId = await this.resolveTrackId(query.appId, query.country, trace);
    if (!trackId) return EMPTY_LIST;
    return listOf(await this.resources.reviews(query.country, trackId, query.page, query.sort, trace));
  }

  async similarApps(query: QueryOf<'apps.similar'>, trace: ResourceTrace = UNTRACKED): Promise<ListData> {
    const trackId = await this.resolveTrackId(query.appId, query.country, trace);
    if (!trackId) return EMPTY_LIST;
    return listOf((await this.resources.similarApps(query.country, trackId, query.lang, trace)) ?? []);
  }

  async searchBundles(query: QueryOf<'bundles.search'>, trace: ResourceTrace = UNTRACKED): Promise<ListData> {
    return listOf(
      await this.resources.searchBundles(query.term, query.country, query.lang, query.page, SEARCH_PAGE_SIZE, trace),
    );
  }

  async getBundle(query: QueryOf<'bundles.get'>, trace: ResourceTrace = UNTRACKED): Promise<ListData> {
    const bundle = await this.resources.bundle(query.country, query.bundleId, query.lang, trace);
    return bundle ? listOf([bundle]) : EMPTY_LIST;
  }

  /** Page N of every member app's feed, merged into one list in the requested order. */
  async bundleReviews(query: QueryOf<'bundles.reviews'>, trace: ResourceTrace = UNTRACKED): Promise<ListData<Review>> {
    const members = await this.members(query.country, query.bundleId, undefined, trace);
    const pages = await Promise.all(
      members.map((id) => this.resources.reviews(query.country, id, query.page, query.sort, trace)),
    );
    return listOf(pages.flat().sort(compareReviews(query.sort)));
  }

  /** Apps customers also bought with any member, each once, members left out. */
  async similarBundles(query: QueryOf<'bundles.similar'>, trace: ResourceTrace = UNTRACKED): Promise<ListData> {
    const members = await this.members(query.country, query.bundleId, query.lang, trace);
    const lists = await Promise.all(
      members.map((id) => this.resources.similarApps(query.country, id, query.lang, trace)),
    );
    const seen = new Set(members);
    const similar: AmpResource[] = [];
    for (const other of lists.flatMap((list) => list ?? [])) {
      const id = resourceId(other);
      if (seen.has(id)) continue;
      seen.add(id);
      similar.push(other);
    }
    return listOf(similar);
  }

  /** The artist record, then its apps, as Lookup gives them; nothing when the id is not a developer. */
  async getDeveloper(query: QueryOf<'developers.get'>, trace: ResourceTrace = UNTRACKED): Promise<ListData> {
    const own = await this.resources.developer(query.developerId, trace);
    return own ? listOf(own) : EMPTY_LIST;
  }

  /** Average, count and 1-5 star histogram of the app in the storefront; nothing when it is not sold there. */
  async appRatings(query: QueryOf<'apps.ratings'>, trace: ResourceTrace = UNTRACKED): Promise<ListData> {
    const trackId = await this.resolveTrackId(query.appId, query.country, trace);
    if (!trackId) return EMPTY_LIST;
    const ratings = await this.facts.ratings(query.country, trackId, trace);
    return ratings ? listOf([ratings]) : EMPTY_LIST;
  }

  /** The app's privacy label as the store gives it, with the app's id; nothing for an unknown app. */
  async appPrivacy(query: QueryOf<'apps.privacy'>, trace: ResourceTrace = UNTRACKED): Promise<ListData> {
    const trackId = await this.resolveTrackId(query.appId, query.country, trace);
    if (!trackId) return EMPTY_LIST;
    const facts = await this.facts.appFacts(query.country, trackId, query.lang, trace);
    if (!facts) return EMPTY_LIST;
    return listOf([{ appId: trackId, ...facts.privacyDetails }]);
  }

  /** Every version of the app, newest first; nothing for an unknown app. */
  async appVersions(query: QueryOf<'apps.versions'>, trace: ResourceTrace = UNTRACKED): Promise<ListData> {
    const trackId = await this.resolveTrackId(query.appId, query.country, trace);
    if (!trackId) return EMPTY_LIST;
    const facts = await this.facts.appFacts(query.country, trackId, query.lang, trace);
    return facts ? listOf(facts.versionHistory ?? []) : EMPTY_LIST;
  }

  /**
   * Page N of 20 of the chart. Past the end of a chart the page is empty, as for search; past what the
   * source in use lists (the marketing feed stops at 100) it is a failure, not the chart's end.
   */
  async topChart(query: QueryOf<'charts.get'>, trace: ResourceTrace = UNTRACKED): Promise<ListData> {
    const held = await this.facts.chart(query.country, query.chart, query.genre, trace);
    const start = (query.page - 1) * CHART_PAGE_SIZE;
    if (start >= held.entries.length && held.entries.length >= held.depth)
      throw badResponse(`a top chart from a source that lists only its first ${held.depth} apps`, held.source);
    return listOf(held.entries.slice(start, start + CHART_PAGE_SIZE));
  }

  async searchSuggestions(query: QueryOf<'suggestions.search'>, trace: ResourceTrace = UNTRACKED): Promise<ListData> {
    return listOf(await this.facts.suggestions(query.country, query.term, trace));
  }

  /** The feed and the web catalogue want the numeric track id; a bundle identifier costs a lookup. */
  private async resolveTrackId(appId: string, country: string, trace: ResourceTrace): Promise<string | undefined> {
    if (isTrackId(appId)) return appId;
    const app = await this.resources.app(appId, country, undefined, trace);
    return app === undefined ? undefined : String(app.trackId);
  }

  /** Track ids of a bundle's member apps (none for an unknown bundle). */
  private async members(
    country: string,
    bundleId: string,
    lang: string | undefined,
    trace: ResourceTrace,
  ): Promise<string[]> {
    const bundle = await this.resources.bundle(country, bundleId, lang, trace);
    return bundle ? relatedData(bundle, 'apps').map(resourceId) : [];
  }
}
