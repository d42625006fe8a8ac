import type { Catalogue } from '../catalogue/catalogue.js';
import { CATALOGUE_NOW } from '../catalogue/generate.js';
import { generateReviews, sortReviews, type FeedSort } from '../catalogue/reviews.js';
import { soldIn, storefront } from '../catalogue/storefronts.js';
import { empty, itunesJson, json, text, type EmulatorRequest, type EmulatorResponse, type Route } from '../http.js';
import { artistRecord, softwareRecord } from '../render/itunes-records.js';
import { REVIEW_PAGES, REVIEWS_PER_PAGE, reviewsFeedJson, reviewsFeedXml } from '../render/reviews-feed.js';
import type { DriftSettings } from '../control/drift.js';
import { checkCountryAndLang, invalidParameter, pathOptions, readLimit } from './itunes-params.js';

const SOFTWARE_ENTITIES = new Set(['software', 'ipadsoftware', 'macsoftware']);
const NO_RESULTS = { resultCount: 0, results: [] };

/**
 * iTunes Search (`/search`), Lookup (`/lookup`) and the customer reviews feed
 * (`/{cc}/rss/customerreviews/.../xml`), as served by itunes.apple.com.
 */
export function itunesRoutes(catalogue: Catalogue, baseUrl: () => string, drift: () => DriftSettings): Route[] {
  const burst = new FeedBurst();
  return [
    (r) => (r.path === '/search' ? search(catalogue, r) : undefined),
    (r) => (r.path === '/lookup' ? lookup(catalogue, r) : undefined),
    (r) => reviewsFeed(catalogue, r, baseUrl(), drift(), burst),
  ];
}

const BURST_WINDOW_MS = 60_000;

/** Feed requests of the last minute, for the drift `reviewsFeed: "empty-after-burst"` (2026-09 reports). */
class FeedBurst {
  private readonly times: number[] = [];

  /** Counts this request; answers whether it is past the first `allowed` of the window. */
  exceeded(allowed: number, now = Date.now()): boolean {
    while (this.times.length > 0 && this.times[0] <= now - BURST_WINDOW_MS) this.times.shift();
    this.times.push(now);
    return this.times.length > allowed;
  }
}

/** Whether the feed answers its empty envelope for this request, as the 2026 drifts make it. */
function feedEmptied(drift: DriftSettings, burst: FeedBurst, optionsPath: string): boolean {
  const exceeded = burst.exceeded(drift.feedBurst);
  switch (drift.reviewsFeed) {
    case 'entries':
      return false;
    case 'empty':
      return true;
    case 'empty-after-burst':
      return exceeded;
    case 'empty-one-form':
      return /^\/page=/i.test(optionsPath);
  }
}

function search(catalogue: Catalogue, request: EmulatorRequest): EmulatorResponse {
  const { query } = request;
  const invalid = checkCountryAndLang(query);
  if (invalid) return invalid;
  const media = query.get('media');
  const entity = query.get('entity');
  if ((media && media !== 'software' && media !== 'all') || (entity && !SOFTWARE_ENTITIES.has(entity.toLowerCase()))) {
    return itunesJson(200, NO_RESULTS);
  }
  const front = storefront(query.get('country') ?? 'us');
  const term = query.get('term') ?? '';
  if (!front || term.trim() === '') return itunesJson(200, NO_RESULTS);
  const limit = readLimit(query.get('limit'), 50, 200);
  const results = catalogue
    .searchApps(term, front)
    .slice(0, limit)
    .map((app) => softwareRecord(catalogue, app, front));
  return itunesJson(200, { resultCount: results.length, results });
}

function splitList(value: string | null): string[] {
  return (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}

function lookup(catalogue: Catalogue, request: EmulatorRequest): EmulatorResponse {
  const { query } = request;
  const invalid = checkCountryAndLang(query);
  if (invalid) return invalid;
  const ids = splitList(query.get('id'));
  if (ids.some((id) => !/^\d{1,19}$/.test(id))) return invalidParameter('id');
  const bundleIds = splitList(query.get('bundleId'));
  const entity = query.get('entity');
  const withSoftware = entity !== null && SOFTWARE_ENTITIES.has(entity.toLowerCase());
  const limit = readLimit(query.get('limit'), 50, 200);
  const front = storefront(query.get('country') ?? 'us');
  if (!front) return itunesJson(200, NO_RESULTS);

  const results: Record<string, unknown>[] = [];
  for (const id of ids) {
    const numeric = Number(id);
    const app = catalogue.app(numeric, front);
    if (app) {
      results.push(softwareRecord(catalogue, app, front));
      continue;
    }
    const developer = catalogue.developer(numeric, front);
    if (!developer) continue;
    results.push(artistRecord(developer, front));
    if (withSoftware) {
      const apps = developer.apps
        .filter((a) => soldIn(a.storefronts, front))
        .sort((a, b) => b.ratingCount - a.ratingCount || a.index - b.index);
      for (const a of apps.slice(0, limit)) results.push(softwareRecord(catalogue, a, front));
    }
  }
  for (const bundleId of bundleIds) {
    const app = catalogue.appByBundleId(bundleId, front);
    if (app) results.push(softwareRecord(catalogue, app, front));
  }
  return itunesJson(200, { resultCount: results.length, results });
}

/** The emulator's XML feed wants an iTunes-like client; others get a feed with no entries (see docs/upstream.md). */
export function isItunesLikeUserAgent(userAgent: string | undefined): boolean {
  return userAgent !== undefined && /\b(iTunes|AppStore|CFNetwork)\//i.test(userAgent);
}

const FEED_PATH = /^\/([A-Za-z]{2})\/rss\/customerreviews((?:\/[^/]+)*?)\/(xml|json)$/i;

function reviewsFeed(
  catalogue: Catalogue,
  request: EmulatorRequest,
  base: string,
  drift: DriftSettings,
  burst: FeedBurst,
): EmulatorResponse | undefined {
  const match = FEED_PATH.exec(request.path);
  if (!match) return undefined;
  const country = match[1].toLowerCase();
  const options = pathOptions(match[2]);
  const trackId = options.get('id') ?? '';
  const page = Number(options.get('page') ?? '1');
  if (!/^\d{1,19}$/.test(trackId) || !Number.isInteger(page) || page < 1 || page > REVIEW_PAGES) return empty(400);
  const sort: FeedSort =
    (options.get('sortby') ?? 'mostrecent').toLowerCase() === 'mosthelpful' ? 'mostHelpful' : 'mostRecent';
  const updated = `${new Date(CATALOGUE_NOW - 7 * 3_600_000).toISOString().slice(0, 19)}-07:00`;
  const feedRequest = { country, trackId, page, sort };
  const front = storefront(country);
  const asJson = match[3].toLowerCase() === 'json';
  // The JSON form answers any client, as scrapers use it; the XML form only iTunes-like ones.
  const emptied = feedEmptied(drift, burst, match[2]);
  const app =
    front && !emptied && (asJson || isItunesLikeUserAgent(request.headers['user-agent']))
      ? catalogue.app(Number(trackId), front)
      : undefined;
  const all = app && front ? sortReviews(generateReviews(catalogue, app, front), sort) : [];
  const pageReviews = all.slice((page - 1) * REVIEWS_PER_PAGE, page * REVIEWS_PER_PAGE);
  const feed = { base, request: feedRequest, app, front, reviews: pageReviews, total: all.length, updated, emptied };
  if (asJson) return json(200, reviewsFeedJson(feed, drift.reviewsFirstEntry === 'app' && pageReviews.length > 0));
  return text(200, reviewsFeedXml(feed), 'application/atom+xml; charset=UTF-8');
}
