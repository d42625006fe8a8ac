import type { Review } from '../store/store-adapter.js';
import { badResponse, isRecord } from '../upstream/upstream-failures.js';
import { serializedServerData } from './bearer-token.js';
import type { AmpResource } from './web-catalogue.js';

/**
 * What an apps.apple.com page shows in its serialized server data (`<script type="application/json"
 * id="serialized-server-data">`): its first reviews (objects with `$kind: "Review"`: `id, title, date,
 * contents, rating, reviewerName`, as joeseesun/qiaomu-app-review-insights reads them, 2026-06), its
 * rating count, its "You Might Also Like" shelf and a bundle's apps (lockups: `adamId, title, …`).
 * Found by `$kind` and shelf name wherever they sit, since the page's layout moves.
 */
export interface StorePageData {
  /** The page's title (the app's or bundle's name). */
  title: string;
  reviews: Review[];
  /** The page's rating count, when it shows one. */
  ratingCount?: number;
  /** "You Might Also Like", as catalogue `apps` resources of what the lockups carry. */
  similar: AmpResource[];
  /** A bundle page's apps, the same way. */
  bundleApps: AmpResource[];
}

type Json = Record<string, unknown>;

const text = (value: unknown) => (typeof value === 'string' ? value : '');

function walk(value: unknown, visit: (node: Json, key: string | undefined) => void): void {
  const stack: [unknown, string | undefined][] = [[value, undefined]];
  for (let seen = 0; stack.length > 0 && seen < 200_000; seen++) {
    const [node, key] = stack.pop()!;
    if (Array.isArray(node)) for (const item of node) stack.push([item, key]);
    else if (isRecord(node)) {
      visit(node, key);
      for (const [childKey, child] of Object.entries(node)) stack.push([child, childKey]);
    }
  }
}

function lockupResource(lockup: Json, country: string): AmpResource | undefined {
  const id = text(lockup.adamId);
  if (!/^\d+$/.test(id)) return undefined;
  return {
    id,
    type: 'apps',
    href: `/v1/catalog/${country}/apps/${id}`,
    attributes: {
      name: text(lockup.title),
      artistName: text(lockup.developerName),
      url: text(lockup.url),
      ...(isRecord(lockup.artwork) ? { artwork: lockup.artwork } : {}),
      ...(lockup.bundleId === undefined ? {} : { platformAttributes: { ios: { bundleId: lockup.bundleId } } }),
    },
  };
}

/** The lockups of the shelf whose name matches, in page order, each once. */
function shelfLockups(data: unknown, shelf: RegExp, country: string): AmpResource[] {
  const found = new Map<string, AmpResource>();
  walk(data, (node, key) => {
    if (key === undefined || !shelf.test(key) || !Array.isArray(node.items)) return;
    for (const item of node.items) {
      const resource = isRecord(item) && item.$kind === 'Lockup' ? lockupResource(item, country) : undefined;
      if (resource && !found.has(String(resource.id))) found.set(String(resource.id), resource);
    }
  });
  return [...found.values()];
}

/** The page's reviews, in page order, mapped as the feed's are (what the page does not show is empty). */
function pageReviews(data: unknown, appId: string): Review[] {
  const reviews = new Map<string, Review>();
  walk(data, (node) => {
    if (node.$kind !== 'Review') return;
    const id = text(node.id);
    const score = Number(node.rating);
    if (!id || !Number.isInteger(score) || score < 1 || score > 5 || reviews.has(id)) return;
    reviews.set(id, {
      id,
      appId,
      userName: text(node.reviewerName),
      userUrl: '',
      version: '',
      score,
      title: text(node.title),
      text: text(node.contents),
      url: '',
      updated: text(node.date),
      voteSum: 0,
      voteCount: 0,
    });
  });
  // The walk visits siblings last-first; the page's order is the reverse.
  return [...reviews.values()].reverse();
}

function ratingCount(data: unknown): number | undefined {
  let count: number | undefined;
  walk(data, (node) => {
    if (node.$kind === 'Ratings' && typeof node.totalNumberOfRatings === 'number') count = node.totalNumberOfRatings;
  });
  return count;
}

/** Reads a store page; a page without serialized data (or with data we cannot read) is an unreadable answer. */
export function parseStorePage(html: string, appId: string, country: string, host: string): StorePageData {
  const data = serializedServerData(html);
  if (!isRecord(data) && !Array.isArray(data)) throw badResponse('a store page without its serialized data', host);
  let title = '';
  walk(data, (node, key) => {
    if (key === 'data' && typeof node.title === 'string' && isRecord(node.shelfMapping)) title = node.title;
  });
  return {
    title,
    reviews: pageReviews(data, appId),
    ratingCount: ratingCount(data),
    similar: shelfLockups(data, /similar|alsoLike/i, country),
    bundleApps: shelfLockups(data, /bundleContents/i, country),
  };
}
