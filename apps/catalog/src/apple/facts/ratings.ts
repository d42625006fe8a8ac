import { badResponse, isRecord } from '../../upstream/upstream-failures.js';
import { pathSegment } from '../apple-urls.js';

/** An app's star ratings in one storefront, whichever source gave them. */
export interface Ratings {
  appId: string;
  country: string;
  /** Mean of the ratings, 1..5 (0 when there are none), as the store rounds it. */
  average: number;
  count: number;
  /** How many ratings gave each number of stars: `{"1": …, "5": …}`. */
  histogram: Record<'1' | '2' | '3' | '4' | '5', number>;
}

/**
 * `https://itunes.apple.com/{cc}/customer-reviews/id{N}?displayable-kind=11`, sent with the storefront
 * header (app-store-scraper `ratings`; JSON with the `,29` platform per notes of 2025–2026).
 */
export function customerReviewsUrl(itunesBaseUrl: string, country: string, trackId: string): URL {
  const url = new URL(`${itunesBaseUrl}/${pathSegment(country)}/customer-reviews/id${pathSegment(trackId)}`);
  url.searchParams.set('displayable-kind', '11');
  return url;
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

function toRatings(
  appId: string,
  country: string,
  average: unknown,
  count: unknown,
  list: unknown,
  host: string,
): Ratings {
  if (!Array.isArray(list) || list.length !== 5 || !list.every(isCount))
    throw badResponse('ratings without five star counts', host);
  if (!isCount(count) || typeof average !== 'number') throw badResponse('ratings without a count and an average', host);
  const [one, two, three, four, five] = list;
  return { appId, country, average, count, histogram: { '1': one, '2': two, '3': three, '4': four, '5': five } };
}

/**
 * The customer-reviews page as JSON: `{adamId, ratingAverage, ratingCount, ratingCountList,
 * totalNumberOfReviews}`, one to five stars in that order. The HTML form (what a request without the
 * right platform gets) is not this source's answer.
 */
export function parseCustomerReviewsRatings(body: string, trackId: string, country: string, host: string): Ratings {
  let document: unknown;
  try {
    document = JSON.parse(body);
  } catch {
    throw badResponse(
      body.trimStart().startsWith('<') ? 'a ratings page in HTML, not JSON' : 'ratings that are not JSON',
      host,
    );
  }
  if (!isRecord(document)) throw badResponse('ratings that are not an object', host);
  if (String(document.adamId) !== trackId) throw badResponse('the ratings of another app', host);
  return toRatings(trackId, country, document.ratingAverage, document.ratingCount, document.ratingCountList, host);
}

/** The web catalogue's `attributes.userRating` (`value`, `ratingCount`, `ratingCountList`), or undefined without one. */
export function catalogueUserRating(
  attributes: Record<string, unknown>,
  trackId: string,
  country: string,
  host: string,
): Ratings | undefined {
  const rating = attributes.userRating;
  if (!isRecord(rating)) return undefined;
  return toRatings(trackId, country, rating.value, rating.ratingCount, rating.ratingCountList, host);
}

/**
 * Counts that do not add up to the total, or an average outside 1..5 for rated apps (or above 0 for
 * unrated ones), are a source's failure, never an answer.
 */
export function ratingsImplausible(ratings: Ratings): string | undefined {
  const sum = Object.values(ratings.histogram).reduce((a, b) => a + b, 0);
  if (sum !== ratings.count) return `star counts adding up to ${sum}, not ${ratings.count}`;
  const rated = ratings.count > 0;
  if (rated ? ratings.average < 1 || ratings.average > 5 : ratings.average !== 0)
    return `an average of ${ratings.average} for ${ratings.count} ratings`;
  return undefined;
}
