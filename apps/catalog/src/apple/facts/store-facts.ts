import { type ChartKind, CHART_KINDS } from '@appcat/contracts';
import { type ResourceTrace, UNTRACKED } from '../../cache/provenance.js';
import { ArgsCodec, oneOf, optionalText, ResourceKind, ResourceKinds, text } from '../../cache/resource-descriptor.js';
import type { Freshness, ResourceStore } from '../../cache/resource-store.js';
import type { AppleStoreConfig, CacheTtls } from '../../config.js';
import { notServed, type Source, SourceChain, type SourceObserver } from '../../upstream/source-chain.js';
import type { UpstreamHttpClient } from '../../upstream/upstream-http-client.js';
import { badResponse, expectSuccess, isRecord } from '../../upstream/upstream-failures.js';
import { freshnessFor, keyOf, normaliseTerm } from '../apple-resources.js';
import type { SourceOrders } from '../apple-sources.js';
import { ITUNES_UPSTREAM, MARKETING_RSS_UPSTREAM, SEARCH_HINTS_UPSTREAM, sourceUpstreams } from '../apple-upstreams.js';
import type { AppleUrls } from '../apple-urls.js';
import type { SiteClient } from '../site-client.js';
import type { CatalogueDoor } from '../sources/catalogue-door.js';
import { resourcesOf, type WebCatalogue } from '../web-catalogue.js';
import {
  APP_FACTS_EXTEND,
  type AppFacts,
  privacyImplausible,
  readAppFacts,
  versionsImplausible,
} from './catalogue-facts.js';
import {
  type ChartEntry,
  chartImplausible,
  ITUNES_CHART_LIMIT,
  itunesChartUrl,
  MARKETING_CHART_LIMIT,
  marketingChartUrl,
  parseItunesChart,
  parseMarketingChart,
} from './chart-feeds.js';
import {
  catalogueUserRating,
  customerReviewsUrl,
  parseCustomerReviewsRatings,
  type Ratings,
  ratingsImplausible,
} from './ratings.js';
import { parseSearchHints, searchHintsUrl, type Suggestion, suggestionsImplausible } from './search-hints.js';
import { storeFrontHeader } from './storefront-ids.js';

/** A top chart as cached: its apps and how deep the source that gave it can go. */
export interface HeldChart {
  source: 'itunes-rss' | 'marketing-rss';
  /** The most apps that source lists: past them the chart goes on, the source does not. */
  depth: number;
  entries: ChartEntry[];
}

// The arguments of each kind, in the order its refresh jobs carry them.
interface ChartArgs {
  country: string;
  chart: ChartKind;
  genre: string | undefined;
}
interface RatingsArgs {
  country: string;
  trackId: string;
}
interface AppFactsArgs {
  country: string;
  trackId: string;
  lang: string | undefined;
}
interface HintsArgs {
  country: string;
  term: string;
}

/** What the store facts reach Apple through: the same clients the nine routes' sources use. */
export interface StoreFactsClients {
  http: UpstreamHttpClient;
  web: WebCatalogue;
  site: SiteClient;
  urls: AppleUrls;
}

/**
 * The store facts beside the nine routes, each an upstream resource described once (its kind) and
 * read through a chain of sources in the configured order (docs/upstream.md, "Store facts"):
 * - a top chart: the iTunes chart feed, then the marketing tools feed (free and paid, no genre);
 * - an app's ratings: the customer-reviews page, then the rating among the app's facts;
 * - an app's facts (privacy label, version history, user rating): one catalogue request, amp-api then
 *   the same-origin catalogue;
 * - the search hints for a prefix.
 */
export class AppleStoreFacts {
  private readonly details: Freshness;
  private readonly chartKind: ResourceKind<ChartArgs, HeldChart>;
  private readonly ratingsKind: ResourceKind<RatingsArgs, Ratings>;
  private readonly appFactsKind: ResourceKind<AppFactsArgs, AppFacts>;
  private readonly hintsKind: ResourceKind<HintsArgs, Suggestion[]>;
  /** Every kind above, for refresh jobs and for the upstream a cached key is loaded from. */
  readonly kinds: ResourceKinds;

  constructor(
    private readonly clients: StoreFactsClients,
    private readonly config: Pick<AppleStoreConfig, 'itunesBaseUrl' | 'marketingRssBaseUrl' | 'searchHintsBaseUrl'>,
    private readonly store: ResourceStore,
    ttl: CacheTtls,
    orders: SourceOrders,
    observe?: SourceObserver,
  ) {
    const freshness = (seconds: number) => freshnessFor(ttl, seconds);
    const charts = freshness(ttl.chartsSeconds);
    this.details = freshness(ttl.detailsSeconds);
    const hints = freshness(ttl.searchSeconds);
    const chain = <A, T>(route: keyof SourceOrders, all: Record<string, Source<A, T>>) =>
      new SourceChain<A, T>(
        route,
        (orders[route] as readonly string[]).map((name) => all[name]),
        observe,
      );
    const { web, site, urls } = clients;
    const referer = new URL('/', urls.webOrigin());
    const doors: CatalogueDoor[] = [
      { name: 'amp-api', urls: urls.amp, document: (url) => web.getDocument(url) },
      { name: 'catalogue', urls: urls.sameOrigin, document: (url) => site.catalogueDocument(url, referer) },
    ];
    const chartChain = chain<ChartArgs, HeldChart>('charts.get', {
      'itunes-rss': this.itunesChartSource(),
      'marketing-rss': this.marketingChartSource(),
    });
    const ratingsChain = chain<RatingsArgs, Ratings>('apps.ratings', {
      'customer-reviews': this.customerReviewsSource(),
      'app-facts': this.appFactsRatingSource(),
    });
    const appFactsChain = chain<AppFactsArgs, AppFacts>(
      'apps.privacy',
      Object.fromEntries(doors.map((door) => [door.name, this.appFactsSource(door)])),
    );
    const hintsChain = chain<HintsArgs, Suggestion[]>('suggestions.search', { hints: this.hintsSource() });

    const upstreams = (route: keyof SourceOrders) => sourceUpstreams(orders[route]);
    this.chartKind = new ResourceKind({
      kind: 'chart',
      upstreams: upstreams('charts.get'),
      args: new ArgsCodec<ChartArgs>({ country: text, chart: oneOf<ChartKind>(...CHART_KINDS), genre: optionalText }),
      key: (a) => keyOf('chart', a.country, a.chart, a.genre),
      freshness: () => charts,
      load: (a) => chartChain.load(a),
    });
    this.ratingsKind = new ResourceKind({
      kind: 'ratings',
      upstreams: upstreams('apps.ratings'),
      args: new ArgsCodec<RatingsArgs>({ country: text, trackId: text }),
      key: (a) => keyOf('ratings', a.country, a.trackId),
      freshness: () => this.details,
      load: (a) => ratingsChain.load(a),
    });
    this.appFactsKind = new ResourceKind({
      kind: 'app-facts',
      upstreams: upstreams('apps.privacy'),
      args: new ArgsCodec<AppFactsArgs>({ country: text, trackId: text, lang: optionalText }),
      key: (a) => keyOf('app-facts', a.country, a.lang, a.trackId),
      freshness: () => this.details,
      load: (a) => appFactsChain.load(a),
    });
    this.hintsKind = new ResourceKind({
      kind: 'hints',
      upstreams: upstreams('suggestions.search'),
      args: new ArgsCodec<HintsArgs>({ country: text, term: text }),
      key: (a) => keyOf('hints', a.country, a.term),
      freshness: () => hints,
      load: (a) => hintsChain.load(a),
    });
    this.kinds = new ResourceKinds('apple', [this.chartKind, this.ratingsKind, this.appFactsKind, this.hintsKind]);
  }

  async chart(country: string, chart: ChartKind, genre: string | undefined, trace: ResourceTrace): Promise<HeldChart> {
    // A chart always exists, so "not found" never comes back; an empty one is a source failing.
    return (await this.store.get(this.chartKind.request({ country, chart, genre }), trace))!;
  }

  /** An app's ratings in a storefront; undefined when the app is not sold there. */
  ratings(country: string, trackId: string, trace: ResourceTrace): Promise<Ratings | undefined> {
    return this.store.get(this.ratingsKind.request({ country, trackId }), trace);
  }

  /**
   * An app's privacy label, version history and user rating (both asked for, so both present);
   * undefined when the catalogue does not know the app there.
   */
  appFacts(
    country: string,
    trackId: string,
    lang: string | undefined,
    trace: ResourceTrace,
  ): Promise<AppFacts | undefined> {
    return this.store.get(this.appFactsKind.request({ country, trackId, lang }), trace);
  }

  /** What the store suggests for a prefix, in its order. */
  async suggestions(country: string, term: string, trace: ResourceTrace): Promise<Suggestion[]> {
    return (await this.store.get(this.hintsKind.request({ country, term: normaliseTerm(term) }), trace)) ?? [];
  }

  private itunesChartSource(): Source<ChartArgs, HeldChart> {
    return {
      name: 'itunes-rss',
      load: async ({ country, chart, genre }) => {
        const url = itunesChartUrl(this.config.itunesBaseUrl, country, chart, genre);
        const entries = parseItunesChart(await this.getText(url, ITUNES_UPSTREAM), url.host);
        return { source: 'itunes-rss', depth: ITUNES_CHART_LIMIT, entries };
      },
      implausible: async (held) => chartImplausible(held?.entries ?? []),
    };
  }

  /** Free and paid charts without a genre only, 100 apps. */
  private marketingChartSource(): Source<ChartArgs, HeldChart> {
    return {
      name: 'marketing-rss',
      load: async ({ country, chart, genre }) => {
        const url = marketingChartUrl(this.config.marketingRssBaseUrl, country, chart, genre);
        if (!url) throw notServed(genre === undefined ? `the ${chart} chart` : 'a chart of one genre');
        const entries = parseMarketingChart(await this.getText(url, MARKETING_RSS_UPSTREAM), url.host);
        return { source: 'marketing-rss', depth: MARKETING_CHART_LIMIT, entries };
      },
      implausible: async (held) => chartImplausible(held?.entries ?? []),
    };
  }

  /** The customer-reviews page takes its storefront from a header: a country without a known id cannot ask it. */
  private customerReviewsSource(): Source<RatingsArgs, Ratings> {
    return {
      name: 'customer-reviews',
      load: async ({ country, trackId }) => {
        const storeFront = storeFrontHeader(country);
        if (storeFront === undefined) throw notServed(`a storefront without a known id (${country})`);
        const url = customerReviewsUrl(this.config.itunesBaseUrl, country, trackId);
        const response = await this.clients.http.get({
          url,
          upstream: ITUNES_UPSTREAM,
          headers: { accept: 'application/json', 'x-apple-store-front': storeFront },
        });
        if (response.status === 404) return undefined;
        expectSuccess(response, url.host);
        return parseCustomerReviewsRatings(response.body, trackId, country, url.host);
      },
      implausible: async (ratings) => (ratings ? ratingsImplausible(ratings) : undefined),
    };
  }

  /** The `userRating` among the app's facts: the cached resource, itself read through its own sources. */
  private appFactsRatingSource(): Source<RatingsArgs, Ratings> {
    return {
      name: 'app-facts',
      load: async ({ country, trackId }) => {
        const facts = await this.appFacts(country, trackId, undefined, UNTRACKED);
        if (!facts) return undefined;
        const host = this.clients.urls.amp.app(country, trackId, {}).host;
        const ratings = catalogueUserRating({ userRating: facts.userRating }, trackId, country, host);
        if (!ratings) throw badResponse('an app without its user rating', host);
        return ratings;
      },
      implausible: async (ratings) => (ratings ? ratingsImplausible(ratings) : undefined),
    };
  }

  /** All of an app's facts in one catalogue request (`extend=privacyDetails,versionHistory`), through a door. */
  private appFactsSource(door: CatalogueDoor): Source<AppFactsArgs, AppFacts> {
    return {
      name: door.name,
      load: async ({ country, trackId, lang }) => {
        const url = door.urls.app(country, trackId, { lang });
        url.searchParams.set('extend', APP_FACTS_EXTEND.join(','));
        const document = await door.document(url);
        const app = (document === undefined ? [] : resourcesOf(document, url.host)).find(
          (r) => String(r.id) === trackId,
        );
        return app === undefined ? undefined : readAppFacts(isRecord(app.attributes) ? app.attributes : {});
      },
      // Both were asked for: an answer without either is not believed (and so never kept).
      implausible: async (facts) => (facts ? (privacyImplausible(facts) ?? versionsImplausible(facts)) : undefined),
    };
  }

  private hintsSource(): Source<HintsArgs, Suggestion[]> {
    return {
      name: 'hints',
      load: async ({ country, term }) => {
        const storeFront = storeFrontHeader(country);
        // No store id known for the country: there is no store there to suggest anything.
        if (storeFront === undefined) return [];
        const url = searchHintsUrl(this.config.searchHintsBaseUrl, term);
        return parseSearchHints(
          await this.getText(url, SEARCH_HINTS_UPSTREAM, { 'x-apple-store-front': storeFront }),
          url.host,
        );
      },
      implausible: async (suggestions, { term }) => suggestionsImplausible(term, suggestions ?? []),
    };
  }

  private async getText(url: URL, upstream: string, headers: Record<string, string> = {}): Promise<string> {
    const response = await this.clients.http.get({ url, upstream, headers: { accept: '*/*', ...headers } });
    expectSuccess(response, url.host);
    return response.body;
  }
}
