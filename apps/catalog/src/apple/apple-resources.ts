import { REVIEWS_MAX_PAGE, type ReviewSort } from '@appcat/contracts';
import { createHash } from 'node:crypto';
import { type ResourceTrace, UNTRACKED } from '../cache/provenance.js';
import {
  anyText,
  ArgsCodec,
  integer,
  oneOf,
  optionalText,
  ResourceKind,
  ResourceKinds,
  text,
} from '../cache/resource-descriptor.js';
import type { Freshness, ResourceStore } from '../cache/resource-store.js';
import type { CacheTtls } from '../config.js';
import type { Review } from '../store/store-adapter.js';
import { Batcher } from '../upstream/batcher.js';
import { type Source, SourceChain, type SourceObserver } from '../upstream/source-chain.js';
import { type SourceOrders, type SourcedRoute } from './apple-sources.js';
import { APPLE_WEB_UPSTREAM, sourceUpstreams } from './apple-upstreams.js';
import type { AppleUrls } from './apple-urls.js';
import type { ItunesApi, ItunesRecord } from './itunes-api.js';
import type { SiteClient } from './site-client.js';
import type { CatalogueDoor } from './sources/catalogue-door.js';
import { catalogueReviewsSource } from './sources/catalogue-reviews.js';
import { doorAppSource } from './sources/door-app.js';
import { doorDeveloperSource } from './sources/door-developer.js';
import { appSearchSource, bundleSearchSource } from './sources/door-search.js';
import { feedSource } from './sources/feed.js';
import { DEVELOPER_STOREFRONT, itunesDeveloperSource } from './sources/itunes-developer.js';
import { itunesSearchSource } from './sources/itunes-search.js';
import { emptySimilar, pageBundleSource, pageReviewsSource, pageSimilarSource } from './sources/page-sources.js';
import { parseStorePage, type StorePageData } from './store-page-data.js';
import { type AmpResource, relatedData, resourcesOf, type WebCatalogue } from './web-catalogue.js';

export const SIMILAR_APPS = 'customers-also-bought-apps';

export interface BatchSettings {
  windowMs: number;
  maxIds: number;
}

/** What the resources read Apple with, besides the cache. */
export interface AppleClients {
  itunes: ItunesApi;
  /** amp-api, with the page's token. */
  web: WebCatalogue;
  /** The same-origin catalogue and the store pages. */
  site: SiteClient;
  urls: AppleUrls;
}

type LookupKey = 'id' | 'bundleId';
interface LookupGroup {
  key: LookupKey;
  country: string;
  lang?: string;
}
interface CatalogueGroup {
  country: string;
  lang?: string;
}

/** Apple matches search terms case-insensitively and ignores extra spaces; so does the cache key. */
export function normaliseTerm(term: string): string {
  return term.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
}

/** A value as one segment of a cache key: no ":" inside, long values hashed. */
function part(value: string | number | undefined): string {
  if (value === undefined || value === '') return '-';
  const encoded = encodeURIComponent(String(value));
  return encoded.length <= 160 ? encoded : `h${createHash('sha256').update(String(value)).digest('base64url')}`;
}

/** How long a kind fresh for `seconds` is good for, its "not found" and stale copies as the settings say. */
export function freshnessFor(ttl: CacheTtls, seconds: number): Freshness {
  return { freshMs: seconds * 1000, notFoundMs: ttl.notFoundSeconds * 1000, staleMs: ttl.staleSeconds * 1000 };
}

/** A cache key of an Apple resource: `apple:<kind>:<part>:…`; the kind names its descriptor (and so its upstream). */
export const keyOf = (...parts: (string | number | undefined)[]) => `apple:${parts.map(part).join(':')}`;

/**
 * Ids that can share a comma-separated list: numeric ids, and bundle identifiers made of the
 * characters they allow. Anything else is asked alone, so it cannot spoil (or split) a batch.
 */
const batchable = (id: string, key: LookupKey = 'id') =>
  (key === 'id' ? /^\d{1,19}$/ : /^[A-Za-z0-9._-]{1,255}$/).test(id);

/** Groups ids by what else the URL carries; an id that cannot be batched gets a group of its own. */
const groupOf = (id: string, batchableId: boolean, ...params: (string | undefined)[]) =>
  [...params.map((p) => p ?? ''), ...(batchableId ? [] : [id])].join('|');

const lookupKeyOf = (appId: string): LookupKey => (/^\d+$/.test(appId) ? 'id' : 'bundleId');

// The arguments of each kind, in the order its refresh jobs carry them.
interface SearchArgs {
  term: string;
  country: string;
  lang: string | undefined;
}
interface AppArgs {
  appId: string;
  country: string;
  lang: string | undefined;
}
interface DeveloperArgs {
  artistId: string;
}
interface ReviewsArgs {
  country: string;
  trackId: string;
  page: number;
  sort: ReviewSort;
}
interface SimilarArgs {
  country: string;
  trackId: string;
  lang: string | undefined;
}
interface BundleArgs {
  country: string;
  bundleId: string;
  lang: string | undefined;
}
interface BundleSearchArgs {
  term: string;
  country: string;
  lang: string | undefined;
  page: number;
  pageSize: number;
}
interface PageArgs {
  country: string;
  id: string;
}

/**
 * Apple's upstream resources, each cached on its own (see docs/catalog-resilience.md) so that every
 * route using one reuses it: the 200-result search list, an app's lookup record, a developer's list,
 * a reviews feed page, an app's customers-also-bought list, a bundle, a bundle search page. Each kind
 * is described once ({@link ResourceKind}): key, freshness, loader, refresh-job codec. Lookups of
 * apps, similar lists and bundles that miss the cache at about the same time go out as one batched
 * call per storefront and language.
 */
export class AppleResources {
  private readonly details: Freshness;
  private readonly lookups: Batcher<LookupGroup, ItunesRecord>;
  private readonly similarLists: Batcher<CatalogueGroup, AmpResource[]>;
  private readonly bundles: Batcher<CatalogueGroup, AmpResource>;
  private readonly searchKind: ResourceKind<SearchArgs, ItunesRecord[]>;
  private readonly appKind: ResourceKind<AppArgs, ItunesRecord>;
  private readonly developerKind: ResourceKind<DeveloperArgs, ItunesRecord[]>;
  private readonly reviewsKind: ResourceKind<ReviewsArgs, Review[]>;
  private readonly similarKind: ResourceKind<SimilarArgs, AmpResource[]>;
  private readonly bundleKind: ResourceKind<BundleArgs, AmpResource>;
  private readonly bundleSearchKind: ResourceKind<BundleSearchArgs, AmpResource[]>;
  private readonly appPageKind: ResourceKind<PageArgs, StorePageData>;
  private readonly bundlePageKind: ResourceKind<PageArgs, StorePageData>;
  /** Every kind above, for refresh jobs and for the upstream a cached key is loaded from. */
  readonly kinds: ResourceKinds;
  private readonly itunes: ItunesApi;
  private readonly web: WebCatalogue;
  private readonly urls: AppleUrls;

  constructor(
    clients: AppleClients,
    private readonly store: ResourceStore,
    ttl: CacheTtls,
    batch: BatchSettings,
    orders: SourceOrders,
    observe?: SourceObserver,
  ) {
    const { itunes, web, site, urls } = clients;
    this.itunes = itunes;
    this.web = web;
    this.urls = urls;
    const freshness = (seconds: number) => freshnessFor(ttl, seconds);
    this.details = freshness(ttl.detailsSeconds);
    const lists = freshness(ttl.listsSeconds);
    const searches = freshness(ttl.searchSeconds);
    const recentReviews = freshness(ttl.recentReviewsSeconds);
    const reviewPages = freshness(ttl.reviewsSeconds);
    const { windowMs, maxIds } = batch;
    this.lookups = new Batcher({
      windowMs,
      maxIds,
      run: (group, ids) => this.lookupBatch(group, ids),
      gate: () => this.itunes.admit(),
    });
    this.similarLists = new Batcher({
      windowMs,
      maxIds,
      run: (group, ids) => this.similarBatch(group, ids),
      gate: (group) => this.web.admit(this.urls.amp.apps(group.country, [], {})),
    });
    this.bundles = new Batcher({
      windowMs,
      maxIds,
      run: (group, ids) => this.bundleBatch(group, ids),
      gate: (group) => this.web.admit(this.urls.amp.bundles(group.country, [], {})),
    });

    const upstreams = (route: SourcedRoute) => sourceUpstreams(orders[route]);
    const chain = <A, T>(route: SourcedRoute, all: Record<string, Source<A, T>>) =>
      new SourceChain<A, T>(
        route,
        (orders[route] as readonly string[]).map((name) => all[name]),
        observe,
      );
    const amp: CatalogueDoor = { name: 'amp-api', urls: urls.amp, document: (url) => web.getDocument(url) };
    const referer = new URL('/', urls.webOrigin());
    const catalogue: CatalogueDoor = {
      name: 'catalogue',
      urls: urls.sameOrigin,
      document: (url) => site.catalogueDocument(url, referer),
    };
    const ratingsOf = async (trackId: string, country: string) =>
      Number((await this.app(trackId, country, undefined, UNTRACKED))?.userRatingCount ?? 0) || 0;
    const appPage = (country: string, id: string) => this.page(this.appPageKind, country, id);
    const bundlePage = (country: string, id: string) => this.page(this.bundlePageKind, country, id);
    // iTunes answers carry full software records: each is that app's lookup answer too.
    const priming = <A>(
      source: Source<A, ItunesRecord[]>,
      where: (a: A) => [country: string, lang: string | undefined],
    ): Source<A, ItunesRecord[]> => ({
      ...source,
      load: async (a) => {
        const records = await source.load(a);
        if (records) await this.primeApps(records, ...where(a));
        return records;
      },
    });

    const searches$ = chain<SearchArgs, ItunesRecord[]>('apps.search', {
      itunes: priming(itunesSearchSource(itunes), (a) => [a.country, a.lang]),
      catalogue: appSearchSource(catalogue),
      'amp-api': appSearchSource(amp),
    });
    this.searchKind = new ResourceKind({
      kind: 'search',
      upstreams: upstreams('apps.search'),
      args: new ArgsCodec<SearchArgs>({ term: anyText, country: text, lang: optionalText }),
      key: (a) => keyOf('search', a.country, a.lang, a.term),
      freshness: () => searches,
      load: (a, noteSource) => searches$.load(a, noteSource),
    });
    const apps$ = chain<AppArgs, ItunesRecord>('apps.get', {
      // A bundle identifier is sent as given, as maintained scrapers send it (Apple's own casing is what
      // is known to work), and cached under that spelling; the answer is matched without regard to case.
      itunes: {
        name: 'itunes',
        load: (a) =>
          this.lookups.load(
            this.lookupGroupOf(a),
            { key: lookupKeyOf(a.appId), country: a.country, lang: a.lang },
            a.appId,
          ),
      },
      catalogue: doorAppSource(catalogue),
    });
    this.appKind = new ResourceKind({
      kind: 'app',
      upstreams: upstreams('apps.get'),
      args: new ArgsCodec<AppArgs>({ appId: text, country: text, lang: optionalText }),
      key: (a) => this.appKey(lookupKeyOf(a.appId), a.appId, a.country, a.lang),
      freshness: () => this.details,
      group: (a) => `lookup|${this.lookupGroupOf(a)}`,
      load: (a, noteSource) => apps$.load(a, noteSource),
    });
    const developers$ = chain<DeveloperArgs, ItunesRecord[]>('developers.get', {
      itunes: priming(itunesDeveloperSource(itunes), () => [DEVELOPER_STOREFRONT, undefined]),
      catalogue: doorDeveloperSource(catalogue),
    });
    this.developerKind = new ResourceKind({
      kind: 'developer',
      upstreams: upstreams('developers.get'),
      args: new ArgsCodec<DeveloperArgs>({ artistId: text }),
      key: (a) => keyOf('developer', a.artistId),
      freshness: () => lists,
      load: (a, noteSource) => developers$.load(a, noteSource),
    });
    const reviews$ = chain<ReviewsArgs, Review[]>('apps.reviews', {
      feed: feedSource(itunes, 'page-first', ratingsOf),
      'feed-id-first': feedSource(itunes, 'id-first', ratingsOf),
      catalogue: catalogueReviewsSource(catalogue, ratingsOf),
      page: pageReviewsSource(appPage),
    });
    this.reviewsKind = new ResourceKind({
      kind: 'reviews',
      upstreams: upstreams('apps.reviews'),
      args: new ArgsCodec<ReviewsArgs>({
        country: text,
        trackId: text,
        page: integer,
        sort: oneOf<ReviewSort>('recent', 'helpful'),
      }),
      key: (a) => keyOf('reviews', a.country, a.trackId, a.sort, a.page),
      freshness: (a) => (a.page === 1 && a.sort === 'recent' ? recentReviews : reviewPages),
      load: (a, noteSource) => reviews$.load(a, noteSource),
    });
    const similarGroup = (a: SimilarArgs) => groupOf(a.trackId, batchable(a.trackId), a.country, a.lang);
    const notShownOnPage = emptySimilar(appPage);
    const similar$ = chain<SimilarArgs, AmpResource[]>('apps.similar', {
      'amp-api': {
        name: 'amp-api',
        load: (a) => this.similarLists.load(similarGroup(a), { country: a.country, lang: a.lang }, a.trackId),
        implausible: notShownOnPage,
      },
      catalogue: {
        name: 'catalogue',
        load: async (a) => {
          const url = urls.sameOrigin.app(a.country, a.trackId, { include: SIMILAR_APPS, lang: a.lang });
          const document = await catalogue.document(url);
          const [app] = document === undefined ? [] : resourcesOf(document, url.host);
          return app === undefined ? undefined : relatedData(app, SIMILAR_APPS);
        },
        implausible: notShownOnPage,
      },
      page: pageSimilarSource(appPage),
    });
    this.similarKind = new ResourceKind({
      kind: 'similar',
      upstreams: upstreams('apps.similar'),
      args: new ArgsCodec<SimilarArgs>({ country: text, trackId: text, lang: optionalText }),
      key: (a) => keyOf('similar', a.country, a.lang, a.trackId),
      freshness: () => lists,
      group: (a) => `similar|${similarGroup(a)}`,
      load: (a, noteSource) => similar$.load(a, noteSource),
    });
    const bundleGroup = (a: BundleArgs) => groupOf(a.bundleId, batchable(a.bundleId), a.country, a.lang);
    const bundles$ = chain<BundleArgs, AmpResource>('bundles.get', {
      'amp-api': {
        name: 'amp-api',
        load: (a) => this.bundles.load(bundleGroup(a), { country: a.country, lang: a.lang }, a.bundleId),
      },
      catalogue: {
        name: 'catalogue',
        load: async (a) => {
          const url = urls.sameOrigin.bundle(a.country, a.bundleId, { include: 'apps', lang: a.lang });
          const document = await catalogue.document(url);
          return document === undefined ? undefined : resourcesOf(document, url.host)[0];
        },
      },
      page: pageBundleSource(bundlePage),
    });
    this.bundleKind = new ResourceKind({
      kind: 'bundle',
      upstreams: upstreams('bundles.get'),
      args: new ArgsCodec<BundleArgs>({ country: text, bundleId: text, lang: optionalText }),
      key: (a) => keyOf('bundle', a.country, a.lang, a.bundleId),
      freshness: () => this.details,
      group: (a) => `bundle|${bundleGroup(a)}`,
      load: (a, noteSource) => bundles$.load(a, noteSource),
    });
    const bundleSearches$ = chain<BundleSearchArgs, AmpResource[]>('bundles.search', {
      'amp-api': bundleSearchSource(amp),
      catalogue: bundleSearchSource(catalogue),
    });
    this.bundleSearchKind = new ResourceKind({
      kind: 'bundle-search',
      upstreams: upstreams('bundles.search'),
      args: new ArgsCodec<BundleSearchArgs>({
        term: anyText,
        country: text,
        lang: optionalText,
        page: integer,
        pageSize: integer,
      }),
      key: (a) => keyOf('bundle-search', a.country, a.lang, a.page, a.term),
      freshness: () => searches,
      load: (a, noteSource) => bundleSearches$.load(a, noteSource),
    });
    const pageKind = (kind: 'app-page' | 'bundle-page', path: 'app' | 'app-bundle') =>
      new ResourceKind<PageArgs, StorePageData>({
        kind,
        upstreams: [APPLE_WEB_UPSTREAM],
        args: new ArgsCodec<PageArgs>({ country: text, id: text }),
        key: (a) => keyOf(kind, a.country, a.id),
        freshness: () => lists,
        load: async (a) => {
          const url = urls.storePage(a.country, path, a.id);
          const html = await site.page(url);
          return html === undefined ? undefined : parseStorePage(html, a.id, a.country, url.host);
        },
      });
    this.appPageKind = pageKind('app-page', 'app');
    this.bundlePageKind = pageKind('bundle-page', 'app-bundle');
    this.kinds = new ResourceKinds('apple', [
      this.searchKind,
      this.appKind,
      this.developerKind,
      this.reviewsKind,
      this.similarKind,
      this.bundleKind,
      this.bundleSearchKind,
      this.appPageKind,
      this.bundlePageKind,
    ]);
  }

  /** The whole result list of a search, at most 200 records. */
  async searchApps(
    term: string,
    country: string,
    lang: string | undefined,
    trace: ResourceTrace,
  ): Promise<ItunesRecord[]> {
    return (await this.store.get(this.searchKind.request({ term: normaliseTerm(term), country, lang }), trace)) ?? [];
  }

  /** An app's software record by track id or bundle identifier; undefined when not sold there. */
  app(
    appId: string,
    country: string,
    lang: string | undefined,
    trace: ResourceTrace,
  ): Promise<ItunesRecord | undefined> {
    return this.store.get(this.appKind.request({ appId, country, lang }), trace);
  }

  /** The artist record followed by its apps; undefined when the id is not a developer's. */
  developer(artistId: string, trace: ResourceTrace): Promise<ItunesRecord[] | undefined> {
    return this.store.get(this.developerKind.request({ artistId }), trace);
  }

  /** One page of an app's reviews; the feed has pages 1 to 10 only, so nothing else is asked. */
  async reviews(
    country: string,
    trackId: string,
    page: number,
    sort: ReviewSort,
    trace: ResourceTrace,
  ): Promise<Review[]> {
    if (!Number.isInteger(page) || page < 1 || page > REVIEWS_MAX_PAGE) return [];
    return (await this.store.get(this.reviewsKind.request({ country, trackId, page, sort }), trace)) ?? [];
  }

  /** Apps customers also bought with this one; undefined when the web catalogue does not know the app. */
  similarApps(
    country: string,
    trackId: string,
    lang: string | undefined,
    trace: ResourceTrace,
  ): Promise<AmpResource[] | undefined> {
    return this.store.get(this.similarKind.request({ country, trackId, lang }), trace);
  }

  /** A bundle with its member apps in full; undefined when unknown there. */
  bundle(
    country: string,
    bundleId: string,
    lang: string | undefined,
    trace: ResourceTrace,
  ): Promise<AmpResource | undefined> {
    return this.store.get(this.bundleKind.request({ country, bundleId, lang }), trace);
  }

  /** One page of bundle search results: the web catalogue pages searches itself (25 at most a call). */
  async searchBundles(
    term: string,
    country: string,
    lang: string | undefined,
    page: number,
    pageSize: number,
    trace: ResourceTrace,
  ): Promise<AmpResource[]> {
    const request = this.bundleSearchKind.request({ term: normaliseTerm(term), country, lang, page, pageSize });
    return (await this.store.get(request, trace)) ?? [];
  }

  private lookupGroupOf(a: AppArgs): string {
    const key = lookupKeyOf(a.appId);
    return groupOf(a.appId, batchable(a.appId, key), key, a.country, a.lang);
  }

  private appKey(key: LookupKey, id: string, country: string, lang: string | undefined): string {
    return keyOf('app', country, lang, key, id);
  }

  /** A store page's data through the cache; read by the page sources and by the similar list's cross-check. */
  private page(
    kind: ResourceKind<PageArgs, StorePageData>,
    country: string,
    id: string,
  ): Promise<StorePageData | undefined> {
    return this.store.get(kind.request({ country, id }), UNTRACKED);
  }

  private async lookupBatch(group: LookupGroup, ids: string[]): Promise<Map<string, ItunesRecord>> {
    const { results } = await this.itunes.lookup(group.key, ids, { country: group.country, lang: group.lang }, true);
    const found = new Map<string, ItunesRecord>();
    // Each asked spelling, by the form records are matched on: the track id, or the bundle id in lower case.
    const asked = new Map<string, string[]>();
    const matchForm = (id: string) => (group.key === 'id' ? id : id.toLowerCase());
    for (const id of ids) asked.set(matchForm(id), [...(asked.get(matchForm(id)) ?? []), id]);
    for (const record of results) {
      if (record.wrapperType !== 'software') continue;
      const spellings = asked.get(matchForm(String(group.key === 'id' ? record.trackId : record.bundleId)));
      for (const id of spellings ?? []) if (!found.has(id)) found.set(id, record);
    }
    // The same records answer the other way of asking for them (and the asked ids are filled by the store).
    await this.primeApps([...found.values()], group.country, group.lang);
    return found;
  }

  /**
   * Search results, a developer's apps and lookups all carry the apps' full software records: each is
   * that app's lookup answer in the storefront and language asked, so later lookups cost nothing.
   */
  private async primeApps(records: ItunesRecord[], country: string, lang: string | undefined): Promise<void> {
    const entries: [string, ItunesRecord][] = [];
    for (const record of records) {
      if (record.wrapperType !== 'software' || record.trackId === undefined) continue;
      entries.push([this.appKey('id', String(record.trackId), country, lang), record]);
      if (typeof record.bundleId === 'string')
        entries.push([this.appKey('bundleId', record.bundleId, country, lang), record]);
    }
    await this.store.put(this.details, entries, 'itunes');
  }

  private async similarBatch(group: CatalogueGroup, ids: string[]): Promise<Map<string, AmpResource[]>> {
    const apps =
      (await this.web.getResources(
        this.urls.amp.apps(group.country, ids, { include: SIMILAR_APPS, lang: group.lang }),
        true,
      )) ?? [];
    return new Map(apps.map((app) => [String(app.id), relatedData(app, SIMILAR_APPS)]));
  }

  private async bundleBatch(group: CatalogueGroup, ids: string[]): Promise<Map<string, AmpResource>> {
    const bundles =
      (await this.web.getResources(
        this.urls.amp.bundles(group.country, ids, { include: 'apps', lang: group.lang }),
        true,
      )) ?? [];
    return new Map(bundles.map((bundle) => [String(bundle.id), bundle]));
  }
}
