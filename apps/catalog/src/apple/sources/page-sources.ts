import type { Review } from '../../store/store-adapter.js';
import { notServed, type Source } from '../../upstream/source-chain.js';
import type { StorePageData } from '../store-page-data.js';
import type { AmpResource } from '../web-catalogue.js';
import { REVIEWED_AT_RATINGS, type ReviewsArgs } from './plausibility.js';

/** A store page's data, read through the cache (undefined: no such page there). */
export type PageOf = (country: string, id: string) => Promise<StorePageData | undefined>;

/**
 * The app page's first reviews (its serialized data), the last resort for the first page sorted by
 * most recent: the page shows no other. Not believed empty when the page's own rating count says the
 * app has reviews.
 */
export function pageReviewsSource(appPage: PageOf): Source<ReviewsArgs, Review[]> {
  return {
    name: 'page',
    load: async (a) => {
      if (a.page !== 1 || a.sort !== 'recent') throw notServed('reviews past the first few, or sorted by helpfulness');
      return (await appPage(a.country, a.trackId))?.reviews;
    },
    implausible: async (answer, a) => {
      const ratings = answer?.length === 0 ? ((await appPage(a.country, a.trackId))?.ratingCount ?? 0) : 0;
      return ratings >= REVIEWED_AT_RATINGS ? `no reviews on a page showing ${ratings} ratings` : undefined;
    },
  };
}

export interface SimilarArgs {
  country: string;
  trackId: string;
  lang: string | undefined;
}

/** "You Might Also Like" on the app page, as catalogue `apps` resources of what its lockups carry. */
export function pageSimilarSource(appPage: PageOf): Source<SimilarArgs, AmpResource[]> {
  return { name: 'page', load: async (a) => (await appPage(a.country, a.trackId))?.similar };
}

/** An empty similar list from a catalogue, while the app page shows some: not believed. */
export function emptySimilar(appPage: PageOf) {
  return async (answer: AmpResource[] | undefined, a: SimilarArgs): Promise<string | undefined> => {
    if (answer === undefined || answer.length > 0) return undefined;
    const shown = (await appPage(a.country, a.trackId))?.similar.length ?? 0;
    return shown > 0 ? `no similar apps while the app page shows ${shown}` : undefined;
  };
}

export interface BundleArgs {
  country: string;
  bundleId: string;
  lang: string | undefined;
}

/** A bundle from its page: an `app-bundles` resource whose `apps` relationship holds the page's lockups. */
export function pageBundleSource(bundlePage: PageOf): Source<BundleArgs, AmpResource> {
  return {
    name: 'page',
    load: async (a) => {
      const page = await bundlePage(a.country, a.bundleId);
      if (page === undefined) return undefined;
      return {
        id: a.bundleId,
        type: 'app-bundles',
        href: `/v1/catalog/${a.country}/app-bundles/${a.bundleId}`,
        attributes: { name: page.title },
        relationships: { apps: { data: page.bundleApps } },
      };
    },
  };
}
