import type { App } from '../catalogue/model.js';
import type { FeedSort, Review } from '../catalogue/reviews.js';
import type { Storefront } from '../catalogue/storefronts.js';
import { appUrl, developerUrl } from './itunes-records.js';
import { iconUrl } from './artwork.js';

export const REVIEWS_PER_PAGE = 50;
export const REVIEW_PAGES = 10;

export function escapeXml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!,
  );
}

export interface FeedRequest {
  country: string;
  trackId: string;
  page: number;
  sort: FeedSort;
}

/** One page of an app's review feed, as both forms render it. */
export interface FeedPage {
  base: string;
  request: FeedRequest;
  /** Absent for an app the storefront does not sell (the feed is then empty). */
  app: App | undefined;
  front: Storefront | undefined;
  reviews: Review[];
  /** How many reviews the app has in all: the paging links end at the last page they fill. */
  total: number;
  updated: string;
  /**
   * The 2026 envelope that holds nothing while the app has reviews: its paging links' `href`s are empty,
   * as in the capture of 2026-08-12 (ziyi28/app-review-insights, tests/fixtures/apple/empty-feed-no-entry.json).
   */
  emptied?: boolean;
}

function lastPageOf(total: number): number {
  return Math.max(1, Math.min(REVIEW_PAGES, Math.ceil(total / REVIEWS_PER_PAGE)));
}

function feedUrl(base: string, r: FeedRequest, page: number, format: 'xml' | 'json' = 'xml'): string {
  return `${base}/${r.country}/rss/customerreviews/page=${page}/id=${r.trackId}/sortby=${r.sort.toLowerCase()}/${format}`;
}

function entryXml(review: Review, app: App, front: Storefront): string {
  const userUri = `https://itunes.apple.com/${front.code}/reviews/id${review.userId}`;
  const html = `<table border="0" width="100%"><tr><td><table border="0" width="100%" cellspacing="0" cellpadding="0"><tr valign="top" align="left"><td width="100%"><b><a href="https://apps.apple.com/${front.code}/app/${encodeURIComponent(app.slug)}/id${app.trackId}?uo=2">${escapeXml(review.title)}</a></b><br/><font size="2" face="Helvetica,Arial,Geneva,Swiss,SunSans-Regular"></font></td></tr></table></td></tr><tr><td><font size="2" face="Helvetica,Arial,Geneva,Swiss,SunSans-Regular"><br/>${escapeXml(review.content)}</font><br/></td></tr></table>`;
  return `	<entry>
		<updated>${review.updated}</updated>
		<id>${review.id}</id>
		<title>${escapeXml(review.title)}</title>
		<content type="text">${escapeXml(review.content)}</content>
		<link rel="related" href="https://itunes.apple.com/${front.code}/review?id=${app.trackId}&amp;type=Purple%20Software"/>
		<im:voteSum>${review.voteSum}</im:voteSum>
		<im:contentType term="Application" label="Application"/>
		<im:voteCount>${review.voteCount}</im:voteCount>
		<im:rating>${review.rating}</im:rating>
		<im:version>${escapeXml(review.version)}</im:version>
		<author><name>${escapeXml(review.userName)}</name><uri>${userUri}</uri></author>
		<content type="html">${escapeXml(html)}</content>
	</entry>
`;
}

/**
 * Atom feed as itunes.apple.com/{cc}/rss/customerreviews/.../xml serves it: feed metadata, paging
 * links, then one <entry> per review (none on an empty page, exactly one when there is one review).
 */
export function reviewsFeedXml(feed: FeedPage): string {
  const { base, request: r, app, front, reviews: page, updated } = feed;
  const lastPage = lastPageOf(feed.total);
  const links = [
    `	<link rel="alternate" type="text/html" href="https://apps.apple.com/WebObjects/MZStore.woa/wa/viewGrouping?cc=${r.country}&amp;id=1000"/>`,
    `	<link rel="self" href="${feedUrl(base, r, r.page)}"/>`,
    `	<link rel="first" href="${feedUrl(base, r, 1)}?urlDesc=/customerreviews/id=${r.trackId}/sortby=${r.sort}/xml"/>`,
    `	<link rel="last" href="${feedUrl(base, r, lastPage)}?urlDesc=/customerreviews/id=${r.trackId}/sortby=${r.sort}/xml"/>`,
    `	<link rel="previous" href="${feedUrl(base, r, Math.max(1, r.page - 1))}?urlDesc=/customerreviews/id=${r.trackId}/sortby=${r.sort}/xml"/>`,
    `	<link rel="next" href="${feedUrl(base, r, Math.min(lastPage, r.page + 1))}?urlDesc=/customerreviews/id=${r.trackId}/sortby=${r.sort}/xml"/>`,
  ];
  const entries = app && front ? page.map((review) => entryXml(review, app, front)).join('') : '';
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns:im="http://itunes.apple.com/rss" xmlns="http://www.w3.org/2005/Atom" xml:lang="en">
	<id>${feedUrl(base, r, r.page)}</id><title>iTunes Store: Customer Reviews</title><updated>${updated}</updated>
${links.join('\n')}
	<icon>http://itunes.apple.com/favicon.ico</icon><author><name>iTunes Store</name><uri>http://www.apple.com/itunes/</uri></author><rights>Copyright 2008 Apple Inc.</rights>
${entries}</feed>
`;
}

const label = (value: string | number) => ({ label: String(value) });

/** One review as the JSON feed writes it: every value a string under `label`, attributes beside it. */
function entryJson(review: Review, app: App, front: Storefront): Record<string, unknown> {
  return {
    author: {
      uri: label(`https://itunes.apple.com/${front.code}/reviews/id${review.userId}`),
      name: label(review.userName),
      label: '',
    },
    updated: label(review.updated),
    'im:rating': label(review.rating),
    'im:version': label(review.version),
    id: label(review.id),
    title: label(review.title),
    content: { label: review.content, attributes: { type: 'text' } },
    link: {
      attributes: {
        rel: 'related',
        href: `https://itunes.apple.com/${front.code}/review?id=${app.trackId}&type=Purple%20Software`,
      },
    },
    'im:voteSum': label(review.voteSum),
    'im:contentType': { attributes: { term: 'Application', label: 'Application' } },
    'im:voteCount': label(review.voteCount),
  };
}

/** The app itself, as older captures of the feed list it before the reviews. */
function appEntryJson(app: App, front: Storefront): Record<string, unknown> {
  return {
    'im:name': label(app.name),
    rights: label(`© ${app.developer.name}`),
    'im:price': { label: 'Get', attributes: { amount: '0.00000', currency: front.currency } },
    'im:image': [55, 60, 100].map((size) => ({
      label: iconUrl(app.trackId, size),
      attributes: { height: String(size) },
    })),
    'im:artist': { label: app.developer.name, attributes: { href: developerUrl(app.developer, front) } },
    title: label(`${app.name} - ${app.developer.name}`),
    link: { attributes: { rel: 'alternate', type: 'text/html', href: appUrl(app, front) } },
    id: { label: appUrl(app, front), attributes: { 'im:id': String(app.trackId), 'im:bundleId': app.bundleId } },
    'im:contentType': { attributes: { term: 'Application', label: 'Application' } },
    category: { attributes: { 'im:id': String(app.genre.id), term: app.genre.name, label: app.genre.name } },
    'im:releaseDate': { label: app.releaseDate, attributes: { label: app.releaseDate.slice(0, 10) } },
  };
}

/**
 * The `/json` form of the feed, which maintained scrapers read (2023–2026): `feed.entry` is an array,
 * a single object when the page holds one review, and absent when it holds none. With
 * `appFirst`, the app itself comes first, as in older captures.
 */
export function reviewsFeedJson(source: FeedPage, appFirst: boolean): unknown {
  const { base, request: r, app, front, reviews: page, updated } = source;
  const lastPage = lastPageOf(source.total);
  const link = (rel: string, at: number) => ({
    attributes: { rel, href: source.emptied ? '' : feedUrl(base, r, at, 'json') },
  });
  const entries =
    app && front
      ? [...(appFirst ? [appEntryJson(app, front)] : []), ...page.map((review) => entryJson(review, app, front))]
      : [];
  const feed: Record<string, unknown> = {
    author: { name: label('iTunes Store'), uri: label('http://www.apple.com/itunes/') },
    ...(entries.length === 0 ? {} : { entry: entries.length === 1 ? entries[0] : entries }),
    updated: label(updated),
    rights: label('Copyright 2008 Apple Inc.'),
    title: label('iTunes Store: Customer Reviews'),
    icon: label('http://itunes.apple.com/favicon.ico'),
    link: [
      {
        attributes: {
          rel: 'alternate',
          type: 'text/html',
          href: `https://apps.apple.com/WebObjects/MZStore.woa/wa/viewGrouping?cc=${r.country}&id=1000`,
        },
      },
      { attributes: { rel: 'self', href: feedUrl(base, r, r.page, 'json') } },
      link('first', 1),
      link('last', lastPage),
      link('previous', Math.max(1, r.page - 1)),
      link('next', Math.min(lastPage, r.page + 1)),
    ],
    id: label(feedUrl(base, r, r.page, 'json')),
  };
  return { feed };
}
