import type { Review } from '../../store/store-adapter.js';
import type { Source } from '../../upstream/source-chain.js';
import { isRecord } from '../../upstream/upstream-failures.js';
import type { CatalogueDoor } from './catalogue-door.js';
import { emptyFirstPage, FEED_PAGE_SIZE, type RatingsOf, type ReviewsArgs } from './plausibility.js';

/** The catalogue's reviews endpoint gives 20 at most a call (public code pages it so, 2026). */
const CALL_LIMIT = 20;

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** A `user-reviews` resource as the review object the routes answer; what it lacks (votes, version) is empty. */
function reviewOf(resource: unknown, appId: string): Review | undefined {
  if (!isRecord(resource) || !isRecord(resource.attributes)) return undefined;
  const a = resource.attributes;
  const score = Number(a.rating);
  if (!Number.isInteger(score) || score < 1 || score > 5) return undefined;
  return {
    id: String(resource.id),
    appId,
    userName: text(a.userName),
    userUrl: '',
    version: '',
    score,
    title: text(a.title),
    text: text(a.review),
    url: '',
    updated: text(a.date),
    voteSum: 0,
    voteCount: 0,
  };
}

/**
 * An app's reviews through the same-origin catalogue (`apps/{id}/reviews?offset=&limit=20&sort=`,
 * no token): one page of the route (50) is three calls. An empty first page of an app rated often
 * enough to have reviews is not believed.
 */
export function catalogueReviewsSource(door: CatalogueDoor, ratingsOf: RatingsOf): Source<ReviewsArgs, Review[]> {
  return {
    name: door.name,
    load: async (a) => {
      const start = (a.page - 1) * FEED_PAGE_SIZE;
      const calls = [];
      for (let offset = start; offset < start + FEED_PAGE_SIZE; offset += CALL_LIMIT) {
        const limit = Math.min(CALL_LIMIT, start + FEED_PAGE_SIZE - offset);
        const sort = a.sort === 'recent' ? 'recent' : 'mosthelpful';
        calls.push(door.document(door.urls.reviews(a.country, a.trackId, { offset, limit, sort })));
      }
      const documents = await Promise.all(calls);
      if (documents.some((d) => d === undefined)) return undefined;
      return documents
        .flatMap((d) => (Array.isArray(d!.data) ? d!.data : []))
        .map((r) => reviewOf(r, a.trackId))
        .filter((r): r is Review => r !== undefined);
    },
    implausible: async (answer, a) =>
      answer !== undefined && answer.length === 0 && a.page === 1 ? emptyFirstPage(ratingsOf, a) : undefined,
  };
}
