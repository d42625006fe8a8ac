import { ErrorCode, SEARCH_MAX_PAGE, SEARCH_PAGE_SIZE } from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import { type ResourceTrace, UNTRACKED } from '../cache/provenance.js';
import type { RefreshJob } from '../cache/refresh-queue.js';
import {
  type Freshness,
  type ResourceRequest,
  type ResourceStore,
  UncachedResources,
} from '../cache/resource-store.js';
import type { CacheTtls, GooglePlayConfig } from '../config.js';
import { EMPTY_LIST, listOf, type ListData, type QueryOf, type StoreAdapter } from '../store/store-adapter.js';
import { expectSuccess, httpError } from '../upstream/upstream-failures.js';
import type { UpstreamHttpClient, UpstreamResponse } from '../upstream/upstream-http-client.js';
import {
  appDetails,
  clusterPage,
  clusterPageForm,
  CLUSTER_RPC,
  developerPage,
  searchContinuation,
  searchPage,
  type PlayAppDetails,
  type PlayListedApp,
} from './play-pages.js';
import { PLAY_UPSTREAM, playRefusal, playUpstreamOf } from './play-upstream.js';

/** The language Google Play's pages are asked in; the route takes a country only. */
const PAGE_LANGUAGE = 'en';
const NUMERIC_ID = /^\d+$/;

export interface GooglePlayStoreAdapterOptions {
  /** Where upstream resources are cached; default: none, every call asks Google Play. */
  store?: ResourceStore;
  /** Only matters with a real cache; default: a day's freshness. */
  ttl?: Pick<CacheTtls, 'detailsSeconds' | 'listsSeconds' | 'searchSeconds' | 'notFoundSeconds' | 'staleSeconds'>;
}

/**
 * Google Play, read from its own pages as its site reads them: a search page (`ds:4`), an app's page
 * (`ds:5`), a developer's page (`ds:3`) and the batchexecute continuations behind lists. Our own reader rather than the `google-play-scraper` package:
 * every request must go through our guarded client (rate limit, breaker, egress budget, metrics),
 * which the package's fixed base URL and got-based requests do not allow for all of its calls.
 */
export class GooglePlayStoreAdapter implements StoreAdapter {
  private readonly store: ResourceStore;
  private readonly lists: Freshness;
  private readonly details: Freshness;
  private readonly search: Freshness;
  private readonly host: string;

  constructor(
    private readonly config: GooglePlayConfig,
    private readonly http: UpstreamHttpClient,
    options: GooglePlayStoreAdapterOptions = {},
  ) {
    this.store = options.store ?? new UncachedResources();
    const { detailsSeconds, listsSeconds, searchSeconds, notFoundSeconds, staleSeconds } = options.ttl ?? {
      detailsSeconds: 43_200,
      searchSeconds: 7200,
      listsSeconds: 86_400,
      notFoundSeconds: 3600,
      staleSeconds: 604_800,
    };
    const freshness = (seconds: number) => ({
      freshMs: seconds * 1000,
      notFoundMs: notFoundSeconds * 1000,
      staleMs: staleSeconds * 1000,
    });
    this.lists = freshness(listsSeconds);
    this.details = freshness(detailsSeconds);
    this.search = freshness(searchSeconds);
    this.host = new URL(config.baseUrl).host;
  }

  /** The developer's apps as its page lists them, every continuation page followed; nothing for an unknown developer. */
  async getDeveloper(query: QueryOf<'developers.get'>, trace: ResourceTrace = UNTRACKED): Promise<ListData> {
    const apps = await this.store.get(this.developerRequest(query.country ?? 'us', query.developerId), trace);
    return apps ? listOf(apps) : EMPTY_LIST;
  }

  upstreamsOf(resourceKey: string): readonly string[] | undefined {
    const upstream = playUpstreamOf(resourceKey);
    return upstream === undefined ? undefined : [upstream];
  }

  refreshRequest(job: RefreshJob): ResourceRequest<unknown> | undefined {
    const [country, id, lang] = job.args;
    if (typeof country !== 'string' || typeof id !== 'string') return undefined;
    if (job.kind === 'developer') return this.developerRequest(country, id);
    if (job.kind === 'app') return this.appRequest(country, id, typeof lang === 'string' ? lang : undefined);
    if (job.kind === 'search') return this.searchRequest(country, id, typeof lang === 'string' ? lang : undefined);
    return undefined;
  }

  /** The app's details page, in that country and language; nothing when it is not sold there. */
  async getApp(query: QueryOf<'apps.get'>, trace: ResourceTrace = UNTRACKED): Promise<ListData> {
    const app = await this.store.get(this.appRequest(query.country, query.appId, query.lang), trace);
    return app ? listOf([app]) : EMPTY_LIST;
  }

  /** One page of 20 of a search's results, all pages sharing one cached list (the page and its continuations). */
  async searchApps(query: QueryOf<'apps.search'>, trace: ResourceTrace = UNTRACKED): Promise<ListData> {
    const term = query.term.trim().replace(/\s+/g, ' ').toLowerCase();
    const apps = (await this.store.get(this.searchRequest(query.country, term, query.lang), trace)) ?? [];
    return listOf(apps.slice((query.page - 1) * SEARCH_PAGE_SIZE, query.page * SEARCH_PAGE_SIZE));
  }
  appReviews(): Promise<ListData<never>> {
    return this.notServed('apps.reviews');
  }
  similarApps(): Promise<ListData> {
    return this.notServed('apps.similar');
  }
  searchBundles(): Promise<ListData> {
    return this.notServed('bundles.search');
  }
  getBundle(): Promise<ListData> {
    return this.notServed('bundles.get');
  }
  bundleReviews(): Promise<ListData<never>> {
    return this.notServed('bundles.reviews');
  }
  similarBundles(): Promise<ListData> {
    return this.notServed('bundles.similar');
  }
  // The App Store's store facts (issue #32) are not on Google Play's table yet.
  appRatings(): Promise<ListData> {
    return this.notServed('apps.ratings');
  }
  appPrivacy(): Promise<ListData> {
    return this.notServed('apps.privacy');
  }
  appVersions(): Promise<ListData> {
    return this.notServed('apps.versions');
  }
  topChart(): Promise<ListData> {
    return this.notServed('charts.get');
  }
  searchSuggestions(): Promise<ListData> {
    return this.notServed('suggestions.search');
  }

  private notServed(route: string): never {
    throw new WireException(ErrorCode.InvalidArgument, `Google Play's catalog does not serve ${route}`);
  }

  private developerRequest(country: string, developerId: string): ResourceRequest<PlayListedApp[]> {
    return {
      key: `play:developer:${country}:${developerId}`,
      freshness: this.lists,
      load: () => this.loadDeveloper(country, developerId),
      refresh: { upstream: PLAY_UPSTREAM, kind: 'developer', args: [country, developerId] },
    };
  }

  private searchRequest(country: string, term: string, lang: string | undefined): ResourceRequest<PlayListedApp[]> {
    return {
      key: `play:search:${country}:${lang ?? '-'}:${term}`,
      freshness: this.search,
      load: async () => {
        const url = new URL('/store/search', this.config.baseUrl);
        url.search = new URLSearchParams({ q: term, c: 'apps', hl: lang ?? PAGE_LANGUAGE, gl: country }).toString();
        const first = await this.send(url);
        expectSuccess(first, this.host);
        const page = searchPage(first.body, this.config.baseUrl, this.host);
        const apps = new Map(page.apps.map((app) => [app.appId, app]));
        const wanted = SEARCH_MAX_PAGE * SEARCH_PAGE_SIZE;
        let token = page.nextToken;
        for (let followed = 0; token && apps.size < wanted && followed < this.config.maxContinuations; followed++) {
          const next = await this.send(this.batchUrl(country), clusterPageForm(token));
          expectSuccess(next, this.host);
          const more = searchContinuation(next.body, this.config.baseUrl, this.host);
          for (const app of more.apps) if (!apps.has(app.appId)) apps.set(app.appId, app);
          token = more.apps.length > 0 && more.nextToken !== token ? more.nextToken : undefined;
        }
        return [...apps.values()].slice(0, wanted);
      },
      refresh: { upstream: PLAY_UPSTREAM, kind: 'search', args: [country, term, lang ?? null] },
    };
  }

  private appRequest(country: string, appId: string, lang: string | undefined): ResourceRequest<PlayAppDetails> {
    return {
      key: `play:app:${country}:${lang ?? '-'}:${appId}`,
      freshness: this.details,
      load: async () => {
        const url = new URL('/store/apps/details', this.config.baseUrl);
        url.search = new URLSearchParams({ id: appId, hl: lang ?? PAGE_LANGUAGE, gl: country }).toString();
        const page = await this.send(url);
        if (page.status === 404) return undefined;
        expectSuccess(page, this.host);
        return appDetails(page.body, appId, this.config.baseUrl, this.host);
      },
      refresh: { upstream: PLAY_UPSTREAM, kind: 'app', args: [country, appId, lang ?? null] },
    };
  }

  private async loadDeveloper(country: string, developerId: string): Promise<PlayListedApp[] | undefined> {
    const path = NUMERIC_ID.test(developerId) ? '/store/apps/dev' : '/store/apps/developer';
    const url = new URL(path, this.config.baseUrl);
    url.search = new URLSearchParams({ id: developerId, hl: PAGE_LANGUAGE, gl: country }).toString();
    const first = await this.send(url);
    if (first.status === 404) return undefined;
    expectSuccess(first, this.host);
    const page = developerPage(first.body, this.config.baseUrl, this.host);
    const apps = new Map(page.apps.map((app) => [app.appId, app]));
    const seen = new Set<string>();
    let token = page.nextToken;
    for (let followed = 0; token && !seen.has(token) && followed < this.config.maxContinuations; followed++) {
      seen.add(token);
      const next = await this.send(this.batchUrl(country), clusterPageForm(token));
      expectSuccess(next, this.host);
      const more = clusterPage(next.body, this.config.baseUrl, this.host);
      for (const app of more.apps) if (!apps.has(app.appId)) apps.set(app.appId, app);
      token = more.apps.length > 0 ? more.nextToken : undefined;
    }
    return [...apps.values()];
  }

  private batchUrl(country: string): URL {
    const url = new URL('/_/PlayStoreUi/data/batchexecute', this.config.baseUrl);
    url.search = new URLSearchParams({ rpcids: CLUSTER_RPC, hl: PAGE_LANGUAGE, gl: country }).toString();
    return url;
  }

  /** One request to Google Play; its refusals (consent, captcha, error pages) fail it, whatever the client in front. */
  private async send(url: URL, form?: string): Promise<UpstreamResponse> {
    const response = await this.http.get({
      url,
      form,
      upstream: PLAY_UPSTREAM,
      headers: { 'user-agent': this.config.userAgent, 'accept-language': PAGE_LANGUAGE },
      redirect: 'manual',
      refusal: playRefusal,
    });
    const refused = playRefusal(response);
    if (refused)
      throw new WireException(
        ErrorCode.UpstreamThrottled,
        `upstream store refused the request: ${refused} (${this.host})`,
      );
    if (response.status >= 300 && response.status < 400) throw httpError(response, this.host);
    return response;
  }
}
