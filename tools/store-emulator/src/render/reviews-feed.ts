import type { App } from '../catalogue/model.js';
import type { FeedSort, Review } from '../catalogue/reviews.js';
import type { Storefront } from '../catalogue/storefronts.js';

export const REVIEWS_PER_PAGE = 50;
export const REVIEW_PAGES = 10;

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

export interface FeedRequest {
  country: string;
  trackId: string;
  page: number;
  sort: FeedSort;
}

function feedUrl(base: string, r: FeedRequest, page: number): string {
  return `${base}/${r.country}/rss/customerreviews/page=${page}/id=${r.trackId}/sortby=${r.sort.toLowerCase()}/xml`;
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
export function reviewsFeedXml(base: string, r: FeedRequest, app: App | undefined, front: Storefront | undefined, page: Review[], total: number, updated: string): string {
  const lastPage = Math.max(1, Math.min(REVIEW_PAGES, Math.ceil(total / REVIEWS_PER_PAGE)));
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
