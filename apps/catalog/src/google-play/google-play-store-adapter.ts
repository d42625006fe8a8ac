import { ErrorCode, REVIEWS_PAGE_SIZE, type ReviewSort, SEARCH_MAX_PAGE, SEARCH_PAGE_SIZE } from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import { type ResourceTrace, UNTRACKED } from '../cache/provenance.js';
import type { RefreshJob } from '../cache/refresh-queue.js';
import {
  ArgsCodec,
  integer,
  oneOf,
  optionalText,
  ResourceKind,
  ResourceKinds,
  text,
} from '../cache/resource-descriptor.js';
import {
  type Freshness,
  type ResourceRequest,
  type ResourceStore,
  UncachedResources,
} from '../cache/resource-store.js';
import type { CacheTtls, GooglePlayConfig } from '../config.js';
import {
  EMPTY_LIST,
  listOf,
  type ListData,
  type QueryOf,
  type Review,
  type StoreAdapter,
} from '../store/store-adapter.js';
import { badResponse, expectSuccess, httpError } from '../upstream/upstream-failures.js';
import type { UpstreamHttpClient, UpstreamResponse } from '../upstream/upstream-http-client.js';
import {
  appDetails,
  clusterPage,
  clusterPageForm,
  CLUSTER_RPC,
  developerPage,
  REVIEWS_RPC,
  reviewsForm,
  reviewsPage,
  searchContinuation,
  searchPage,
  similarClusterPath,
  similarPage,
  type PlayAppDetails,
  type PlayListedApp,
  type PlayReviewPage,
} from './play-pages.js';
import { PLAY_UPSTREAM, playRefusal } from './play-upstream.js';

/** The language Google Play's pages are asked in; the route takes a country only. */
const PAGE_LANGUAGE = 'en';
const NUMERIC_ID = /^\d+$/;

export interface GooglePlayStoreAdapterOptions {
  /** Where upstream resources are cached; default: none, every call asks Google Play. */
  store?: ResourceStore;
  /** Only matters with a real cache; default: a day's freshness. */
  ttl?: Pick<
    CacheTtls,
    | 'detailsSeconds'
    | 'listsSeconds'
    | 'searchSeconds'
    | 'recentReviewsSeconds'
    | 'reviewsSeconds'
    | 'notFoundSeconds'
    | 'staleSeconds'
  >;
}

interface AppArgs {
  country: string;
  appId: string;
  lang: string | undefined;
}
interface ReviewsArgs extends AppArgs {
  sort: ReviewSort;
  page: number;
}

/**
 * Google Play, read from its own pages as its site reads them: a search page (`ds:4`), an app's page
 * (`ds:5`, and its `ag2B9c` clusters for similar apps), a developer's page (`ds:3`), a similar-apps
 * cluster page (`ds:3`) and the batchexecute rpcs behind lists (`qnKhOb`) and reviews (`UsvDTd`). Our own
 * reader rather than the `google-play-scraper` package: every request must go through our guarded
 * client (rate limit, breaker, egress budget, metrics), which the package's fixed base URL and
 * got-based requests do not allow for all of its calls.
 */
export class GooglePlayStoreAdapter implements StoreAdapter {
  private readonly store: ResourceStore;
  private readonly host: string;
  private readonly developerKind: ResourceKind<{ country: string; developerId: string }, PlayListedApp[]>;
  private readonly appKind: ResourceKind<AppArgs, PlayAppDetails>;
  private readonly searchKind: ResourceKind<
    { country: string; term: string; lang: string | undefined },
    PlayListedApp[]
  >;
  private readonly reviewsKind: ResourceKind<ReviewsArgs, PlayReviewPage>;
  private readonly similarKind: ResourceKind<AppArgs, PlayListedApp[]>;
  private readonly kinds: ResourceKinds;

  constructor(
    private readonly config: GooglePlayConfig,
    private readonly http: UpstreamHttpClient,
    options: GooglePlayStoreAdapterOptions = {},
  ) {
    this.store = options.store ?? new UncachedResources();
    const ttl = options.ttl ?? {
      detailsSeconds: 43_200,
      searchSeconds: 7200,
      listsSeconds: 86_400,
      recentReviewsSeconds: 1800,
      reviewsSeconds: 21_600,
      notFoundSeconds: 3600,
      staleSeconds: 604_800,
    };
    const freshness = (seconds: number): Freshness => ({
      freshMs: seconds * 1000,
      notFoundMs: ttl.notFoundSeconds * 1000,
      staleMs: ttl.staleSeconds * 1000,
    });
    const lists = freshness(ttl.listsSeconds);
    const details = freshness(ttl.detailsSeconds);
    const search = freshness(ttl.searchSeconds);
    const recentReviews = freshness(ttl.recentReviewsSeconds);
    const reviewPages = freshness(ttl.reviewsSeconds);
    this.host = new URL(config.baseUrl).host;
    const lang = (a: { lang: string | undefined }) => a.lang ?? '-';

    this.developerKind = new ResourceKind({
      kind: 'developer',
      upstreams: [PLAY_UPSTREAM],
      args: new ArgsCodec({ country: text, developerId: text }),
      key: (a) => `play:developer:${a.country}:${a.developerId}`,
      freshness: () => lists,
      load: (a) => this.loadDeveloper(a.country, a.developerId),
    });
    this.appKind = new ResourceKind({
      kind: 'app',
      upstreams: [PLAY_UPSTREAM],
      args: new ArgsCodec<AppArgs>({ country: text, appId: text, lang: optionalText }),
      key: (a) => `play:app:${a.country}:${lang(a)}:${a.appId}`,
      freshness: () => details,
      load: (a) => this.loadApp(a),
    });
    this.searchKind = new ResourceKind({
      kind: 'search',
      upstreams: [PLAY_UPSTREAM],
      args: new ArgsCodec({ country: text, term: text, lang: optionalText }),
      key: (a) => `play:search:${a.country}:${lang(a)}:${a.term}`,
      freshness: () => search,
      load: (a) => this.loadSearch(a.country, a.term, a.lang),
    });
    this.reviewsKind = new ResourceKind({
      kind: 'reviews',
      upstreams: [PLAY_UPSTREAM],
      args: new ArgsCodec<ReviewsArgs>({
        country: text,
        appId: text,
        lang: optionalText,
        sort: oneOf<ReviewSort>('recent', 'helpful'),
        page: integer,
      }),
      key: (a) => `play:reviews:${a.country}:${lang(a)}:${a.sort}:${a.appId}:${a.page}`,
      // The newest reviews change fastest, as Apple's do.
      freshness: (a) => (a.page === 1 && a.sort === 'recent' ? recentReviews : reviewPages),
      load: (a) => this.loadReviews(a),
    });
    this.similarKind = new ResourceKind({
      kind: 'similar',
      upstreams: [PLAY_UPSTREAM],
      args: new ArgsCodec<AppArgs>({ country: text, appId: text, lang: optionalText }),
      key: (a) => `play:similar:${a.country}:${lang(a)}:${a.appId}`,
      freshness: () => lists,
      load: (a) => this.loadSimilar(a),
    });
    this.kinds = new ResourceKinds('play', [
      this.developerKind,
      this.appKind,
      this.searchKind,
      this.reviewsKind,
      this.similarKind,
    ]);
  }

  /** The developer's apps as its page lists them, every continuation page followed; nothing for an unknown developer. */
  async getDeveloper(query: QueryOf<'developers.get'>, trace: ResourceTrace = UNTRACKED): Promise<ListData> {
    const request = this.developerKind.request({ country: query.country ?? 'us', developerId: query.developerId });
    const apps = await this.store.get(request, trace);
    return apps ? listOf(apps) : EMPTY_LIST;
  }

  upstreamsOf(resourceKey: string): readonly string[] | undefined {
    return this.kinds.upstreamsOf(resourceKey);
  }

  refreshRequest(job: RefreshJob): ResourceRequest<unknown> | undefined {
    return this.kinds.fromJob(job);
  }

  /** The app's details page, in that country and language; nothing when it is not sold there. */
  async getApp(query: QueryOf<'apps.get'>, trace: ResourceTrace = UNTRACKED): Promise<ListData> {
    const app = await this.store.get(this.appKind.request(appArgs(query)), trace);
    return app ? listOf([app]) : EMPTY_LIST;
  }

  /** One page of 20 of a search's results, all pages sharing one cached list (the page and its continuations). */
  async searchApps(query: QueryOf<'apps.search'>, trace: ResourceTrace = UNTRACKED): Promise<ListData> {
    const term = query.term.trim().replace(/\s+/g, ' ').toLowerCase();
    const request = this.searchKind.request({ country: query.country, term, lang: query.lang });
    const apps = (await this.store.get(request, trace)) ?? [];
    return listOf(apps.slice((query.page - 1) * SEARCH_PAGE_SIZE, query.page * SEARCH_PAGE_SIZE));
  }

  /** Page N of 50 of the app's reviews in that order; nothing for an app not sold there. */
  async appReviews(query: QueryOf<'apps.reviews'>, trace: ResourceTrace = UNTRACKED): Promise<ListData<Review>> {
    const request = this.reviewsKind.request({ ...appArgs(query), sort: query.sort, page: query.page });
    const page = await this.store.get(request, trace);
    return page ? listOf(page.reviews) : EMPTY_LIST;
  }

  /** The apps Google Play shows as similar on the app's page; nothing for an app not sold there. */
  async similarApps(query: QueryOf<'apps.similar'>, trace: ResourceTrace = UNTRACKED): Promise<ListData> {
    const apps = await this.store.get(this.similarKind.request(appArgs(query)), trace);
    return apps ? listOf(apps) : EMPTY_LIST;
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

  private async loadSearch(country: string, term: string, lang: string | undefined): Promise<PlayListedApp[]> {
    const url = new URL('/store/search', this.config.baseUrl);
    url.search = new URLSearchParams({ q: term, c: 'apps', hl: lang ?? PAGE_LANGUAGE, gl: country }).toString();
    const first = await this.send(url);
    expectSuccess(first, this.host);
    const page = searchPage(first.body, this.config.baseUrl, this.host);
    const apps = new Map(page.apps.map((app) => [app.appId, app]));
    const wanted = SEARCH_MAX_PAGE * SEARCH_PAGE_SIZE;
    let token = page.nextToken;
    for (let followed = 0; token && apps.size < wanted && followed < this.config.maxContinuations; followed++) {
      const next = await this.send(this.batchUrl(CLUSTER_RPC, country), clusterPageForm(token));
      expectSuccess(next, this.host);
      const more = searchContinuation(next.body, this.config.baseUrl, this.host);
      for (const app of more.apps) if (!apps.has(app.appId)) apps.set(app.appId, app);
      token = more.apps.length > 0 && more.nextToken !== token ? more.nextToken : undefined;
    }
    return [...apps.values()].slice(0, wanted);
  }

  private async loadApp({ country, appId, lang }: AppArgs): Promise<PlayAppDetails | undefined> {
    const page = await this.send(this.detailsUrl(appId, country, lang ?? PAGE_LANGUAGE));
    if (page.status === 404) return undefined;
    expectSuccess(page, this.host);
    return appDetails(page.body, appId, this.config.baseUrl, this.host);
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
      const next = await this.send(this.batchUrl(CLUSTER_RPC, country), clusterPageForm(token));
      expectSuccess(next, this.host);
      const more = clusterPage(next.body, this.config.baseUrl, this.host);
      for (const app of more.apps) if (!apps.has(app.appId)) apps.set(app.appId, app);
      token = more.apps.length > 0 ? more.nextToken : undefined;
    }
    return [...apps.values()];
  }

  /**
   * One page of reviews: page 1 asked from the start, page N with the token page N-1 (cached) ended
   * on. Google answers an unknown app with no reviews, so an empty first page is judged by the app's
   * details: not sold there → nothing (not found); rated → implausible, a failure never cached;
   * unrated → truly none. Past the last token the list has ended: an empty page. A token Google
   * rejects (an error frame) drops the page that gave it, so the next call reads the chain afresh.
   */
  private async loadReviews(args: ReviewsArgs): Promise<PlayReviewPage | undefined> {
    const { country, appId, lang, sort, page } = args;
    let token: string | undefined;
    let previousKey: string | undefined;
    if (page > 1) {
      const previous = this.reviewsKind.request({ ...args, page: page - 1 });
      const before = await this.store.get(previous, UNTRACKED);
      if (!before) return undefined;
      if (!before.nextToken) return { reviews: [] };
      token = before.nextToken;
      previousKey = previous.key;
    }
    const answer = await this.send(
      this.batchUrl(REVIEWS_RPC, country, lang ?? PAGE_LANGUAGE),
      reviewsForm(appId, sort, REVIEWS_PAGE_SIZE, token),
    );
    expectSuccess(answer, this.host);
    const read = reviewsPage(answer.body, appId, this.config.baseUrl, this.host);
    if (read.reviews.length > 0) return read;
    if (previousKey) {
      if (read.rejected) {
        await this.store.drop(previousKey);
        throw badResponse('an error for the reviews token it gave', this.host);
      }
      return { reviews: [] };
    }
    const app = await this.store.get(this.appKind.request({ country, appId, lang }), UNTRACKED);
    if (!app) return undefined;
    const rated = (app.ratings ?? 0) + (app.reviews ?? 0);
    if (rated > 0) throw badResponse(`no reviews for an app rated ${rated} times`, this.host);
    return { reviews: [] };
  }

  /**
   * The app's page (asked in English: the cluster is found by its title), the similar cluster it
   * links, then that cluster's page in the asked language: its first page of apps (50 on Google's
   * pages). No cluster linked: none similar. A linked cluster listing nothing is a failure (similarPage).
   */
  private async loadSimilar({ country, appId, lang }: AppArgs): Promise<PlayListedApp[] | undefined> {
    const page = await this.send(this.detailsUrl(appId, country, PAGE_LANGUAGE));
    if (page.status === 404) return undefined;
    expectSuccess(page, this.host);
    appDetails(page.body, appId, this.config.baseUrl, this.host);
    const path = similarClusterPath(page.body, this.host);
    if (!path) return [];
    const url = new URL(path, this.config.baseUrl);
    url.searchParams.set('gl', country);
    url.searchParams.set('hl', lang ?? PAGE_LANGUAGE);
    const cluster = await this.send(url);
    expectSuccess(cluster, this.host);
    return similarPage(cluster.body, this.config.baseUrl, this.host);
  }

  private detailsUrl(appId: string, country: string, hl: string): URL {
    const url = new URL('/store/apps/details', this.config.baseUrl);
    url.search = new URLSearchParams({ id: appId, hl, gl: country }).toString();
    return url;
  }

  private batchUrl(rpc: string, country: string, hl = PAGE_LANGUAGE): URL {
    const url = new URL('/_/PlayStoreUi/data/batchexecute', this.config.baseUrl);
    url.search = new URLSearchParams({ rpcids: rpc, hl, gl: country }).toString();
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

function appArgs(query: { country: string; appId: string; lang?: string }): AppArgs {
  return { country: query.country, appId: query.appId, lang: query.lang };
}
