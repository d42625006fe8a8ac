import type { Review } from '../store/store-adapter.js';
import { badResponse, isRecord } from '../upstream/upstream-failures.js';

/** Something in an answer we read past (it is not an error): the upstream check reports it as drift. */
export type DriftNote = (note: string) => void;

/** One element comes as an object, several as an array, none as nothing: the feed's single-review quirk. */
function asArray(value: unknown): unknown[] {
  if (value === undefined || value === null || value === '') return [];
  return Array.isArray(value) ? value : [value];
}

/** The JSON feed writes every value as text under `label`. */
function labelOf(value: unknown): string {
  if (isRecord(value) && typeof value.label === 'string') return value.label;
  return typeof value === 'string' ? value : '';
}

function numberOf(value: unknown): number {
  const number = Number(labelOf(value));
  return Number.isFinite(number) ? number : 0;
}

function attributesOf(value: unknown): Record<string, unknown> {
  return isRecord(value) && isRecord(value.attributes) ? value.attributes : {};
}

/** Older captures list the app itself first: it has a name and an `im:id`, never a rating. */
function isAppEntry(entry: Record<string, unknown>): boolean {
  return entry['im:name'] !== undefined || attributesOf(entry.id)['im:id'] !== undefined;
}

function toReview(entry: Record<string, unknown>, appId: string): Review | undefined {
  const id = labelOf(entry.id);
  const score = numberOf(entry['im:rating']);
  if (!/^\d+$/.test(id) || score < 1 || score > 5) return undefined;
  const author = isRecord(entry.author) ? entry.author : {};
  const contents = asArray(entry.content);
  const plain =
    contents.find((c) => attributesOf(c).type === 'text') ?? contents.find((c) => attributesOf(c).type !== 'html');
  const links = asArray(entry.link);
  const link = links.find((l) => attributesOf(l).rel === 'related') ?? links[0];
  const href = attributesOf(link).href;
  return {
    id,
    appId,
    userName: labelOf(author.name),
    userUrl: labelOf(author.uri),
    version: labelOf(entry['im:version']),
    score,
    title: labelOf(entry.title),
    text: labelOf(plain),
    url: typeof href === 'string' ? href : '',
    updated: labelOf(entry.updated),
    voteSum: numberOf(entry['im:voteSum']),
    voteCount: numberOf(entry['im:voteCount']),
  };
}

/**
 * Reviews of one page of the customer reviews feed, `/json` form: `{feed: {entry}}`, where `entry`
 * is an array, an object for a single review, or absent when there are none. The app itself, which
 * older captures list first, and stray entries are skipped (and noted); a page whose entries are all
 * unreadable is an unreadable answer, never an empty list.
 */
export function parseReviewsFeed(
  body: string,
  appId: string,
  host: string,
  note: DriftNote = () => undefined,
): Review[] {
  let document: unknown;
  try {
    document = JSON.parse(body);
  } catch {
    throw badResponse('a reviews feed that is not JSON', host);
  }
  const feed = isRecord(document) ? document.feed : undefined;
  if (!isRecord(feed)) throw badResponse('JSON without a reviews feed', host);
  const reviews: Review[] = [];
  let unreadable = 0;
  for (const [index, entry] of asArray(feed.entry).entries()) {
    if (isRecord(entry) && isAppEntry(entry)) {
      note(
        index === 0
          ? 'the reviews feed lists the app itself as its first entry (skipped)'
          : 'the reviews feed lists the app itself among the reviews (skipped)',
      );
      continue;
    }
    const review = isRecord(entry) ? toReview(entry, appId) : undefined;
    if (review) reviews.push(review);
    else unreadable++;
  }
  if (unreadable > 0 && reviews.length === 0) throw badResponse('a reviews feed whose entries cannot be read', host);
  if (unreadable > 0)
    note(`the reviews feed holds ${unreadable} entr${unreadable === 1 ? 'y' : 'ies'} that are not reviews (skipped)`);
  return reviews;
}

/**
 * The page the feed's `last` link names, or undefined when it names none. Apple's empty envelope of
 * 2026 (ziyi28/app-review-insights, tests/fixtures/apple/empty-feed-no-entry.json) leaves every
 * paging link's `href` empty, where a real page past the end still links to the last page.
 */
export function feedLastPage(body: string): number | undefined {
  let document: unknown;
  try {
    document = JSON.parse(body);
  } catch {
    return undefined;
  }
  const feed = isRecord(document) ? document.feed : undefined;
  const links = isRecord(feed) ? asArray(feed.link) : [];
  const last = links.find((link) => attributesOf(link).rel === 'last');
  const href = attributesOf(last).href;
  const page = typeof href === 'string' ? /\/page=(\d+)\//.exec(href)?.[1] : undefined;
  return page === undefined ? undefined : Number(page);
}
