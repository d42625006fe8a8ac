import { type CatalogQuery, ErrorCode, type RouteId } from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import type { ResourceTrace } from '../cache/provenance.js';
import type { RefreshJob } from '../cache/refresh-queue.js';
import type { ResourceRequest } from '../cache/resource-store.js';

export type QueryOf<R extends RouteId> = Extract<CatalogQuery, { route: R }>;

/**
 * What every route puts in the reply's `data`: one page of records and how many are on it. The
 * records themselves are the store's own (iTunes records, web catalogue resources), passed through;
 * only reviews, which come as XML, are mapped to {@link Review}.
 */
export interface ListData<T = unknown> {
  resultCount: number;
  results: T[];
}

/** A review as JSON, whichever store it comes from. */
export interface Review {
  id: string;
  /** The app the review is about (bundle reviews mix several apps). */
  appId: string;
  userName: string;
  userUrl: string;
  version: string;
  score: number;
  title: string;
  text: string;
  url: string;
  /** ISO 8601 as the store wrote it. */
  updated: string;
  voteSum: number;
  voteCount: number;
  /** The author's picture, where the store shows one (Google Play). */
  userImage?: string;
  /** The developer's answer, where the store shows one (Google Play). */
  reply?: { text: string; updated?: string };
}

export const EMPTY_LIST: ListData<never> = Object.freeze({ resultCount: 0, results: [] }) as ListData<never>;

export function listOf<T>(results: T[]): ListData<T> {
  return { resultCount: results.length, results };
}

/**
 * One upstream store behind the catalog routes. A store without a concept (Google Play has no
 * app bundles) throws a typed WireException from that method; nothing else changes for the caller.
 * Every resource a method reads is noted in `trace` (see {@link ResourceStore.get}); without one,
 * nothing is noted and the upstream may be asked (adapter tests, tools).
 */
export interface StoreAdapter {
  searchApps(query: QueryOf<'apps.search'>, trace?: ResourceTrace): Promise<ListData>;
  getApp(query: QueryOf<'apps.get'>, trace?: ResourceTrace): Promise<ListData>;
  appReviews(query: QueryOf<'apps.reviews'>, trace?: ResourceTrace): Promise<ListData<Review>>;
  similarApps(query: QueryOf<'apps.similar'>, trace?: ResourceTrace): Promise<ListData>;
  searchBundles(query: QueryOf<'bundles.search'>, trace?: ResourceTrace): Promise<ListData>;
  getBundle(query: QueryOf<'bundles.get'>, trace?: ResourceTrace): Promise<ListData>;
  bundleReviews(query: QueryOf<'bundles.reviews'>, trace?: ResourceTrace): Promise<ListData<Review>>;
  similarBundles(query: QueryOf<'bundles.similar'>, trace?: ResourceTrace): Promise<ListData>;
  getDeveloper(query: QueryOf<'developers.get'>, trace?: ResourceTrace): Promise<ListData>;
  appRatings(query: QueryOf<'apps.ratings'>, trace?: ResourceTrace): Promise<ListData>;
  appPrivacy(query: QueryOf<'apps.privacy'>, trace?: ResourceTrace): Promise<ListData>;
  appVersions(query: QueryOf<'apps.versions'>, trace?: ResourceTrace): Promise<ListData>;
  topChart(query: QueryOf<'charts.get'>, trace?: ResourceTrace): Promise<ListData>;
  searchSuggestions(query: QueryOf<'suggestions.search'>, trace?: ResourceTrace): Promise<ListData>;
  /** The upstreams (as the breaker and rate limiter name them) a cached resource can be loaded from, in the order tried. */
  upstreamsOf?(resourceKey: string): readonly string[] | undefined;
  /** The resource request a refresh job (queued by any replica) describes; undefined when unknown. */
  refreshRequest?(job: RefreshJob): ResourceRequest<unknown> | undefined;
}

export const STORE_ADAPTER = Symbol('StoreAdapter');

/** Routes a query to the adapter method for its route; every resource it reads is noted in `trace`. */
export function fetchFromStore(store: StoreAdapter, query: CatalogQuery, trace: ResourceTrace): Promise<ListData> {
  switch (query.route) {
    case 'apps.search':
      return store.searchApps(query, trace);
    case 'apps.get':
      return store.getApp(query, trace);
    case 'apps.reviews':
      return store.appReviews(query, trace);
    case 'apps.similar':
      return store.similarApps(query, trace);
    case 'bundles.search':
      return store.searchBundles(query, trace);
    case 'bundles.get':
      return store.getBundle(query, trace);
    case 'bundles.reviews':
      return store.bundleReviews(query, trace);
    case 'bundles.similar':
      return store.similarBundles(query, trace);
    case 'developers.get':
      return store.getDeveloper(query, trace);
    case 'apps.ratings':
      return store.appRatings(query, trace);
    case 'apps.privacy':
      return store.appPrivacy(query, trace);
    case 'apps.versions':
      return store.appVersions(query, trace);
    case 'charts.get':
      return store.topChart(query, trace);
    case 'suggestions.search':
      return store.searchSuggestions(query, trace);
    default: {
      const unknown: never = query;
      throw new WireException(
        ErrorCode.InvalidArgument,
        `unknown catalog route ${JSON.stringify(String((unknown as { route?: unknown })?.route)).slice(0, 60)}`,
      );
    }
  }
}
