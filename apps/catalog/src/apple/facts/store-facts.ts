import { type ChartKind, CHART_KINDS } from '@appcat/contracts';
import type { ResourceTrace } from '../../cache/provenance.js';
import { ArgsCodec, oneOf, optionalText, ResourceKind, ResourceKinds, text } from '../../cache/resource-descriptor.js';
import type { Freshness, ResourceStore } from '../../cache/resource-store.js';
import type { AppleStoreConfig, CacheTtls } from '../../config.js';
import type { UpstreamHttpClient, UpstreamResponse } from '../../upstream/upstream-http-client.js';
import { badResponse, expectSuccess, isRecord } from '../../upstream/upstream-failures.js';
import { freshnessFor, keyOf, normaliseTerm } from '../apple-resources.js';
import {
  APPLE_AMP_UPSTREAM,
  ITUNES_UPSTREAM,
  MARKETING_RSS_UPSTREAM,
  SEARCH_HINTS_UPSTREAM,
} from '../apple-upstreams.js';
import type { AppleUrls } from '../apple-urls.js';
import type { WebCatalogue } from '../web-catalogue.js';
import {
  APP_FACTS_EXTEND,
  type AppFacts,
  checkPrivacyDetails,
  checkVersionHistory,
  readAppFacts,
} from './catalogue-facts.js';
import {
  type ChartEntry,
  checkChart,
  ITUNES_CHART_LIMIT,
  itunesChartUrl,
  MARKETING_CHART_LIMIT,
  marketingChartUrl,
  parseItunesChart,
  parseMarketingChart,
} from './chart-feeds.js';
import {
  catalogueUserRating,
  checkRatings,
  customerReviewsUrl,
  parseCustomerReviewsRatings,
  type Ratings,
} from './ratings.js';
import { checkSuggestions, parseSearchHints, searchHintsUrl, type Suggestion } from './search-hints.js';
import { firstAnswer } from './source-chain.js';
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

/**
 * The store facts beside the nine routes, each an upstream resource cached on its own and reached
 * through a chain of sources (docs/upstream.md, "Store facts"):
 * - a top chart: the iTunes chart feed, then the marketing tools feed (free and paid, no genre);
 * - an app's ratings: the customer-reviews page, then the web catalogue's `userRating`;
 * - an app's facts (privacy label, version history, user rating): the web catalogue, one request;
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
    private readonly http: UpstreamHttpClient,
    private readonly web: WebCatalogue,
    private readonly urls: AppleUrls,
    private readonly config: Pick<AppleStoreConfig, 'itunesBaseUrl' | 'marketingRssBaseUrl' | 'searchHintsBaseUrl'>,
    private readonly store: ResourceStore,
    ttl: CacheTtls,
  ) {
    const freshness = (seconds: number) => freshnessFor(ttl, seconds);
    const charts = freshness(ttl.chartsSeconds);
    this.details = freshness(ttl.detailsSeconds);
    const hints = freshness(ttl.searchSeconds);

    // The upstream each kind is booked on is its first source's.
    this.chartKind = new ResourceKind({
      kind: 'chart',
      upstream: ITUNES_UPSTREAM,
      args: new ArgsCodec<ChartArgs>({ country: text, chart: oneOf<ChartKind>(...CHART_KINDS), genre: optionalText }),
      key: (a) => keyOf('chart', a.country, a.chart, a.genre),
      freshness: () => charts,
      load: (a) => this.loadChart(a),
    });
    this.ratingsKind = new ResourceKind({
      kind: 'ratings',
      upstream: ITUNES_UPSTREAM,
      args: new ArgsCodec<RatingsArgs>({ country: text, trackId: text }),
      key: (a) => keyOf('ratings', a.country, a.trackId),
      freshness: () => this.details,
      load: (a) => this.loadRatings(a),
    });
    this.appFactsKind = new ResourceKind({
      kind: 'app-facts',
      upstream: APPLE_AMP_UPSTREAM,
      args: new ArgsCodec<AppFactsArgs>({ country: text, trackId: text, lang: optionalText }),
      key: (a) => keyOf('app-facts', a.country, a.lang, a.trackId),
      freshness: () => this.details,
      load: (a) => this.loadAppFacts(a),
    });
    this.hintsKind = new ResourceKind({
      kind: 'hints',
      upstream: SEARCH_HINTS_UPSTREAM,
      args: new ArgsCodec<HintsArgs>({ country: text, term: text }),
      key: (a) => keyOf('hints', a.country, a.term),
      freshness: () => hints,
      load: (a) => this.loadHints(a),
    });
    this.kinds = new ResourceKinds('apple', [this.chartKind, this.ratingsKind, this.appFactsKind, this.hintsKind]);
  }

  async chart(country: string, chart: ChartKind, genre: string | undefined, trace: ResourceTrace): Promise<HeldChart> {
    // A chart always exists, so "not found" never comes back; an empty one is a failure (checkChart).
    return (await this.store.get(this.chartKind.request({ country, chart, genre }), trace))!;
  }

  /** An app's ratings in a storefront; undefined when the app is not sold there. */
  ratings(country: string, trackId: string, trace: ResourceTrace): Promise<Ratings | undefined> {
    return this.store.get(this.ratingsKind.request({ country, trackId }), trace);
  }

  /** An app's privacy label, version history and user rating; undefined when the web catalogue does not know it. */
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

  private loadChart({ country, chart, genre }: ChartArgs): Promise<HeldChart | undefined> {
    const itunes = itunesChartUrl(this.config.itunesBaseUrl, country, chart, genre);
    const marketing = marketingChartUrl(this.config.marketingRssBaseUrl, country, chart, genre);
    return firstAnswer<HeldChart>(`the ${chart} chart`, [
      {
        name: 'itunes-rss',
        load: async () => {
          const body = await this.getText(itunes, ITUNES_UPSTREAM, 'application/json');
          const entries = checkChart(parseItunesChart(body, itunes.host), itunes.host);
          return { source: 'itunes-rss', depth: ITUNES_CHART_LIMIT, entries };
        },
      },
      {
        name: 'marketing-rss',
        serves: marketing !== undefined,
        load: async () => {
          const body = await this.getText(marketing!, MARKETING_RSS_UPSTREAM, 'application/json');
          const entries = checkChart(parseMarketingChart(body, marketing!.host), marketing!.host);
          return { source: 'marketing-rss', depth: MARKETING_CHART_LIMIT, entries };
        },
      },
    ]);
  }

  private loadRatings({ country, trackId }: RatingsArgs): Promise<Ratings | undefined> {
    const page = customerReviewsUrl(this.config.itunesBaseUrl, country, trackId);
    const storeFront = storeFrontHeader(country);
    return firstAnswer<Ratings>('the ratings', [
      {
        name: 'customer-reviews',
        // The page takes its storefront from the header: a country without a known id cannot ask it.
        serves: storeFront !== undefined,
        load: async () => {
          const response = await this.http.get({
            url: page,
            upstream: ITUNES_UPSTREAM,
            headers: { accept: 'application/json', 'x-apple-store-front': storeFront! },
          });
          if (response.status === 404) return undefined;
          expectSuccess(response, page.host);
          return checkRatings(parseCustomerReviewsRatings(response.body, trackId, country, page.host), page.host);
        },
      },
      {
        name: 'web-catalogue',
        load: async () => {
          const facts = await this.loadAppFacts({ country, trackId, lang: undefined });
          if (!facts) return undefined;
          const host = this.urls.amp.app(country, trackId, {}).host;
          const ratings = catalogueUserRating({ userRating: facts.userRating }, trackId, country, host);
          if (!ratings) throw badResponse('an app without its user rating', host);
          return checkRatings(ratings, host);
        },
      },
    ]);
  }

  /** One web catalogue request for all of an app's facts; what it learns is kept for the other routes too. */
  private async loadAppFacts({ country, trackId, lang }: AppFactsArgs): Promise<AppFacts | undefined> {
    const url = this.urls.amp.app(country, trackId, { lang });
    url.searchParams.set('extend', APP_FACTS_EXTEND.join(','));
    const resources = await this.web.getResources(url);
    const app = resources?.find((r) => String(r.id) === trackId);
    if (!app) return undefined;
    const facts = readAppFacts(isRecord(app.attributes) ? app.attributes : {});
    // Both were asked for: an answer without either is implausible, and is not kept.
    checkPrivacyDetails(facts, url.host);
    checkVersionHistory(facts, url.host);
    await this.store.put(this.details, [[this.appFactsKind.request({ country, trackId, lang }).key, facts]]);
    return facts;
  }

  private async loadHints({ country, term }: HintsArgs): Promise<Suggestion[]> {
    const storeFront = storeFrontHeader(country);
    // No store id known for the country: there is no store there to suggest anything.
    if (storeFront === undefined) return [];
    const url = searchHintsUrl(this.config.searchHintsBaseUrl, term);
    const body = await this.getText(url, SEARCH_HINTS_UPSTREAM, '*/*', { 'x-apple-store-front': storeFront });
    return checkSuggestions(term, parseSearchHints(body, url.host), url.host);
  }

  private async getText(
    url: URL,
    upstream: string,
    accept: string,
    headers: Record<string, string> = {},
  ): Promise<string> {
    const response: UpstreamResponse = await this.http.get({ url, upstream, headers: { accept, ...headers } });
    expectSuccess(response, url.host);
    return response.body;
  }
}
