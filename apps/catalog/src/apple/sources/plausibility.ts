import type { ReviewSort } from '@appcat/contracts';

/**
 * From this many ratings in a storefront an app has written reviews there: an empty first page of
 * reviews for it is a source failing, not an answer (the 2026 feed answers such apps empty; see
 * docs/upstream.md). Below it, few raters write, and an empty page may be true.
 */
export const REVIEWED_AT_RATINGS = 1000;

/** Reviews on one page of the routes (the feed's page). */
export const FEED_PAGE_SIZE = 50;

/** What the reviews sources read to judge an empty page: the app's Lookup record, cached. */
export type RatingsOf = (trackId: string, country: string) => Promise<number>;

export interface ReviewsArgs {
  country: string;
  trackId: string;
  page: number;
  sort: ReviewSort;
}

/** The first page is empty for an app rated often enough there to have reviews: not believed. */
export async function emptyFirstPage(ratingsOf: RatingsOf, args: ReviewsArgs): Promise<string | undefined> {
  const ratings = await ratingsOf(args.trackId, args.country);
  return ratings >= REVIEWED_AT_RATINGS
    ? `no reviews while Lookup reports ${ratings} ratings in ${args.country}`
    : undefined;
}
