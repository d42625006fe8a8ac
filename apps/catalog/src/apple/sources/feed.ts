import type { Review } from '../../store/store-adapter.js';
import type { Source } from '../../upstream/source-chain.js';
import type { FeedForm } from '../apple-urls.js';
import type { ItunesApi } from '../itunes-api.js';
import { emptyFirstPage, type RatingsOf, type ReviewsArgs } from './plausibility.js';

/**
 * The customer-reviews feed (`/{cc}/rss/customerreviews/…/json`) in one URL form: `feed` is
 * `page=…/id=…/sortby=…`, `feed-id-first` is `id=…/page=…/sortby=…` (Apple has answered one form empty
 * and not the other, Shub3am/BrandPulse 2026-09). An empty page is believed only past the last page
 * the feed's links name; the 2026 envelope (no `entry`, empty links) for a page that should hold
 * reviews is not, nor an empty first page of an app rated often enough to have reviews.
 */
export function feedSource(itunes: ItunesApi, form: FeedForm, ratingsOf: RatingsOf): Source<ReviewsArgs, Review[]> {
  const lastPages = new WeakMap<Review[], number | undefined>();
  return {
    name: form === 'page-first' ? 'feed' : 'feed-id-first',
    load: async (a) => {
      const { reviews, lastPage } = await itunes.reviewsPage(a.country, a.trackId, a.page, a.sort, form);
      lastPages.set(reviews, lastPage);
      return reviews;
    },
    implausible: async (answer, a) => {
      if (answer === undefined || answer.length > 0) return undefined;
      const lastPage = lastPages.get(answer);
      if (lastPage !== undefined && a.page > lastPage) return undefined;
      if (a.page === 1) return emptyFirstPage(ratingsOf, a);
      return lastPage === undefined
        ? `page ${a.page} empty, without paging links`
        : `page ${a.page} empty while the feed has ${lastPage} pages`;
    },
  };
}
