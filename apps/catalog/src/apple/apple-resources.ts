import { REVIEWS_MAX_PAGE, type ReviewSort } from '@appcat/contracts';
import { createHash } from 'node:crypto';
import type { ResourceTrace } from '../cache/provenance.js';
import type { RefreshJob } from '../cache/refresh-queue.js';
import type { Freshness, ResourceRequest, ResourceStore } from '../cache/resource-store.js';
import type { CacheTtls } from '../config.js';
import type { Review } from '../store/store-adapter.js';
import { Batcher } from '../upstream/batcher.js';
import { badResponse, isRecord, quoteUpstreamText } from '../upstream/upstream-failures.js';
import { APPLE_AMP_UPSTREAM, ITUNES_UPSTREAM } from './apple-upstreams.js';
import type { AppleUrls } from './apple-urls.js';
import type { ItunesApi, ItunesRecord } from './itunes-api.js';
import type { AmpResource, WebCatalogue } from './web-catalogue.js';

/** Search has no offset upstream: the most Apple gives, fetched once and sliced per page. */
export const SEARCH_FETCH_LIMIT = 200;
const DEVELOPER_APPS_LIMIT = 200;
/**
 * The developers route takes no storefront. Lookup without `country` answers from Apple's default
 * storefront, which is the US today; we name it, so the answer cannot change with Apple's default.
 */
const DEVELOPER_LOOKUP_STOREFRONT = 'us';
/** What bundle search asks for: the types the web catalogue's search groups its results by, as the site asks. */
const BUNDLE_SEARCH_TYPES = ['apps', 'app-bundles'];
export const SIMILAR_APPS = 'customers-also-bought-apps';

export interface BatchSettings {
  windowMs: number;
  maxIds: number;
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

export function relatedData(resource: AmpResource, relationship: string): AmpResource[] {
  const relationships = isRecord(resource.relationships) ? resource.relationships : {};
  const related = relationships[relationship];
  return isRecord(related) && Array.isArray(related.data) ? related.data.filter(isRecord) : [];
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

const keyOf = (...parts: (string | number | undefined)[]) => `apple:${parts.map(part).join(':')}`;

/**
 * Ids that can share a comma-separated list: numeric ids, and bundle identifiers made of the
 * characters they allow. Anything else is asked alone, so it cannot spoil (or split) a batch.
 */
const batchable = (id: string, key: LookupKey = 'id') =>
  (key === 'id' ? /^\d{1,19}$/ : /^[A-Za-z0-9._-]{1,255}$/).test(id);

/** Groups ids by what else the URL carries; an id that cannot be batched gets a group of its own. */
const groupOf = (id: string, batchableId: boolean, ...params: (string | undefined)[]) =>
  [...params.map((p) => p ?? ''), ...(batchableId ? [] : [id])].join('|');

/**
 * Apple's upstream resources, each cached on its own (see docs/catalog-resilience.md) so that every
 * route using one reuses it: the 200-result search list, an app's lookup record, a developer's list,
 * a reviews feed page, an app's customers-also-bought list, a bundle, a bundle search page. Lookups of
 * apps, similar lists and bundles that miss the cache at about the same time go out as one batched
 * call per storefront and language.
 */
export class AppleResources {
  private readonly details: Freshness;
  private readonly lists: Freshness;
  private readonly searches: Freshness;
  private readonly recentReviews: Freshness;
  private readonly reviewPages: Freshness;
  private readonly lookups: Batcher<LookupGroup, ItunesRecord>;
  private readonly similarLists: Batcher<CatalogueGroup, AmpResource[]>;
  private readonly bundles: Batcher<CatalogueGroup, AmpResource>;

  constructor(
    private readonly itunes: ItunesApi,
    private readonly web: WebCatalogue,
    private readonly urls: AppleUrls,
    private readonly store: ResourceStore,
    ttl: CacheTtls,
    batch: BatchSettings,
  ) {
    const freshness = (seconds: number): Freshness => ({
      freshMs: seconds * 1000,
      notFoundMs: ttl.notFoundSeconds * 1000,
      staleMs: ttl.staleSeconds * 1000,
    });
    this.details = freshness(ttl.detailsSeconds);
    this.lists = freshness(ttl.listsSeconds);
    this.searches = freshness(ttl.searchSeconds);
    this.recentReviews = freshness(ttl.recentReviewsSeconds);
    this.reviewPages = freshness(ttl.reviewsSeconds);
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
      gate: (group) => this.web.admit(this.urls.ampApps(group.country, [], {})),
    });
    this.bundles = new Batcher({
      windowMs,
      maxIds,
      run: (group, ids) => this.bundleBatch(group, ids),
      gate: (group) => this.web.admit(this.urls.ampBundles(group.country, [], {})),
    });
  }

  /** The whole result list of a search, at most 200 records. */
  async searchApps(
    term: string,
    country: string,
    lang: string | undefined,
    trace: ResourceTrace,
  ): Promise<ItunesRecord[]> {
    return (await this.store.get(this.searchRequest(normaliseTerm(term), country, lang), trace)) ?? [];
  }

  private searchRequest(
    normalised: string,
    country: string,
    lang: string | undefined,
  ): ResourceRequest<ItunesRecord[]> {
    return {
      key: keyOf('search', country, lang, normalised),
      freshness: this.searches,
      load: async () => {
        const { results } = await this.itunes.search(normalised, country, lang, SEARCH_FETCH_LIMIT);
        await this.primeApps(results, country, lang);
        return results;
      },
      refresh: { upstream: ITUNES_UPSTREAM, kind: 'search', args: [normalised, country, lang ?? null] },
    };
  }

  /**
   * An app's software record by track id or bundle identifier; undefined when not sold there. A bundle
   * identifier is sent as given, as maintained scrapers send it (Apple's own casing is what is known
   * to work), and cached under that spelling; the answer is matched without regard to case.
   */
  app(
    appId: string,
    country: string,
    lang: string | undefined,
    trace: ResourceTrace,
  ): Promise<ItunesRecord | undefined> {
    return this.store.get(this.appRequest(appId, country, lang), trace);
  }

  private appRequest(appId: string, country: string, lang: string | undefined): ResourceRequest<ItunesRecord> {
    const key: LookupKey = /^\d+$/.test(appId) ? 'id' : 'bundleId';
    const id = appId;
    const group = groupOf(id, batchable(id, key), key, country, lang);
    return {
      key: this.appKey(key, id, country, lang),
      freshness: this.details,
      load: () => this.lookups.load(group, { key, country, lang }, id),
      refresh: {
        upstream: ITUNES_UPSTREAM,
        group: `lookup|${group}`,
        kind: 'app',
        args: [appId, country, lang ?? null],
      },
    };
  }

  /** The artist record followed by its apps; undefined when the id is not a developer's. */
  developer(artistId: string, trace: ResourceTrace): Promise<ItunesRecord[] | undefined> {
    return this.store.get(this.developerRequest(artistId), trace);
  }

  private developerRequest(artistId: string): ResourceRequest<ItunesRecord[]> {
    return {
      key: keyOf('developer', artistId),
      freshness: this.lists,
      load: async () => {
        const { results } = await this.itunes.lookup('id', [artistId], {
          country: DEVELOPER_LOOKUP_STOREFRONT,
          limit: DEVELOPER_APPS_LIMIT,
        });
        const own = results.filter(
          (r) => String(r.artistId) === artistId && (r.wrapperType === 'artist' || r.wrapperType === 'software'),
        );
        if (own[0]?.wrapperType !== 'artist') return undefined;
        await this.primeApps(own, DEVELOPER_LOOKUP_STOREFRONT, undefined);
        return own;
      },
      refresh: { upstream: ITUNES_UPSTREAM, kind: 'developer', args: [artistId] },
    };
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
    return (await this.store.get(this.reviewsRequest(country, trackId, page, sort), trace)) ?? [];
  }

  private reviewsRequest(country: string, trackId: string, page: number, sort: ReviewSort): ResourceRequest<Review[]> {
    return {
      key: keyOf('reviews', country, trackId, sort, page),
      freshness: page === 1 && sort === 'recent' ? this.recentReviews : this.reviewPages,
      load: () => this.itunes.reviewsPage(country, trackId, page, sort),
      refresh: { upstream: ITUNES_UPSTREAM, kind: 'reviews', args: [country, trackId, page, sort] },
    };
  }

  /** Apps customers also bought with this one; undefined when the web catalogue does not know the app. */
  similarApps(
    country: string,
    trackId: string,
    lang: string | undefined,
    trace: ResourceTrace,
  ): Promise<AmpResource[] | undefined> {
    return this.store.get(this.similarRequest(country, trackId, lang), trace);
  }

  private similarRequest(country: string, trackId: string, lang: string | undefined): ResourceRequest<AmpResource[]> {
    const group = groupOf(trackId, batchable(trackId), country, lang);
    return {
      key: keyOf('similar', country, lang, trackId),
      freshness: this.lists,
      load: () => this.similarLists.load(group, { country, lang }, trackId),
      refresh: {
        upstream: APPLE_AMP_UPSTREAM,
        group: `similar|${group}`,
        kind: 'similar',
        args: [country, trackId, lang ?? null],
      },
    };
  }

  /** A bundle with its member apps in full; undefined when unknown there. */
  bundle(
    country: string,
    bundleId: string,
    lang: string | undefined,
    trace: ResourceTrace,
  ): Promise<AmpResource | undefined> {
    return this.store.get(this.bundleRequest(country, bundleId, lang), trace);
  }

  private bundleRequest(country: string, bundleId: string, lang: string | undefined): ResourceRequest<AmpResource> {
    const group = groupOf(bundleId, batchable(bundleId), country, lang);
    return {
      key: keyOf('bundle', country, lang, bundleId),
      freshness: this.details,
      load: () => this.bundles.load(group, { country, lang }, bundleId),
      refresh: {
        upstream: APPLE_AMP_UPSTREAM,
        group: `bundle|${group}`,
        kind: 'bundle',
        args: [country, bundleId, lang ?? null],
      },
    };
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
    return (
      (await this.store.get(this.bundleSearchRequest(normaliseTerm(term), country, lang, page, pageSize), trace)) ?? []
    );
  }

  private bundleSearchRequest(
    normalised: string,
    country: string,
    lang: string | undefined,
    page: number,
    pageSize: number,
  ): ResourceRequest<AmpResource[]> {
    return {
      key: keyOf('bundle-search', country, lang, page, normalised),
      freshness: this.searches,
      load: async () => {
        const url = this.urls.ampSearch(country, normalised, {
          types: BUNDLE_SEARCH_TYPES.join(','),
          limit: pageSize,
          offset: (page - 1) * pageSize,
          lang,
        });
        const document = await this.web.getDocument(url);
        if (document === undefined) return [];
        return searchGroup(document, 'app-bundles', BUNDLE_SEARCH_TYPES, url.host);
      },
      refresh: {
        upstream: APPLE_AMP_UPSTREAM,
        kind: 'bundle-search',
        args: [normalised, country, lang ?? null, page, pageSize],
      },
    };
  }

  /**
   * The request a refresh job describes (the jobs above, as any replica queued them); undefined for a
   * job this version does not know or whose arguments do not fit.
   */
  requestFor(job: RefreshJob): ResourceRequest<unknown> | undefined {
    const [a, b, c, d, e] = job.args;
    const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const lang = (v: unknown) => text(v);
    switch (job.kind) {
      case 'search':
        return text(a) !== undefined && text(b) !== undefined
          ? this.searchRequest(text(a)!, text(b)!, lang(c))
          : undefined;
      case 'app':
        return text(a) && text(b) ? this.appRequest(text(a)!, text(b)!, lang(c)) : undefined;
      case 'developer':
        return text(a) ? this.developerRequest(text(a)!) : undefined;
      case 'reviews':
        return text(a) && text(b) && typeof c === 'number' && (d === 'recent' || d === 'helpful')
          ? this.reviewsRequest(text(a)!, text(b)!, c, d)
          : undefined;
      case 'similar':
        return text(a) && text(b) ? this.similarRequest(text(a)!, text(b)!, lang(c)) : undefined;
      case 'bundle':
        return text(a) && text(b) ? this.bundleRequest(text(a)!, text(b)!, lang(c)) : undefined;
      case 'bundle-search':
        return text(a) !== undefined && text(b) && typeof d === 'number' && typeof e === 'number'
          ? this.bundleSearchRequest(text(a)!, text(b)!, lang(c), d, e)
          : undefined;
      default:
        return undefined;
    }
  }

  private appKey(key: LookupKey, id: string, country: string, lang: string | undefined): string {
    return keyOf('app', country, lang, key, id);
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
    await this.store.put(this.details, entries);
  }

  private async similarBatch(group: CatalogueGroup, ids: string[]): Promise<Map<string, AmpResource[]>> {
    const apps =
      (await this.web.getResources(
        this.urls.ampApps(group.country, ids, { include: SIMILAR_APPS, lang: group.lang }),
        true,
      )) ?? [];
    return new Map(apps.map((app) => [String(app.id), relatedData(app, SIMILAR_APPS)]));
  }

  private async bundleBatch(group: CatalogueGroup, ids: string[]): Promise<Map<string, AmpResource>> {
    const bundles =
      (await this.web.getResources(
        this.urls.ampBundles(group.country, ids, { include: 'apps', lang: group.lang }),
        true,
      )) ?? [];
    return new Map(bundles.map((bundle) => [String(bundle.id), bundle]));
  }
}
