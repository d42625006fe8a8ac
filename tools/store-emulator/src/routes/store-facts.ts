import type { Catalogue } from '../catalogue/catalogue.js';
import { readStoreFrontHeader } from '../catalogue/storefront-ids.js';
import { type ChartKind, CHART_MAX_ENTRIES, ratingHistogram, searchHints, topChart } from '../catalogue/store-facts.js';
import { storefront, type Storefront } from '../catalogue/storefronts.js';
import type { App } from '../catalogue/model.js';
import { empty, json, text, type EmulatorRequest, type EmulatorResponse, type Route } from '../http.js';
import { LEGACY_FEEDS, legacyChartJson, MARKETING_FEEDS, marketingChartJson } from '../render/chart-feeds.js';
import { ratingsHtml, type RatingsSummary, searchHintsPlist } from '../render/store-facts-pages.js';
import { pathOptions } from './itunes-params.js';

const LEGACY_CHART_PATH =
  /^\/([A-Za-z]{2})\/rss\/(topfreeapplications|toppaidapplications|topgrossingapplications)((?:\/[^/]+)*?)\/json$/i;
const MARKETING_CHART_PATH = /^\/api\/v2\/([a-z]{2})\/apps\/([a-z-]+)\/(\d{1,4})\/apps\.json$/;
const RATINGS_PATH = /^\/([a-z]{2})\/customer-reviews\/id(\d{1,19})$/;
export const HINTS_PATH = '/WebObjects/MZSearchHints.woa/wa/hints';
/** The marketing tools feed answers 100 apps at most; more is a server error (public reports, 2023). */
const MARKETING_MAX_LIMIT = 100;
/** The iTunes feed's default length when no `limit=` segment is given. */
const LEGACY_DEFAULT_LIMIT = 10;
/** The platform (after the comma in X-Apple-Store-Front) whose customer-reviews page is JSON. */
const JSON_PLATFORM = 29;

/**
 * Store facts beside the nine routes' endpoints: the two top-chart feeds, the customer-reviews page
 * (star histogram) of itunes.apple.com, and the search hints of search.itunes.apple.com.
 */
export function storeFactsRoutes(catalogue: Catalogue, baseUrl: () => string): Route[] {
  const charts = new Map<string, App[]>();
  const chart = (kind: ChartKind, front: Storefront, genre?: number) => {
    const key = `${kind}|${front.code}|${genre ?? ''}`;
    let apps = charts.get(key);
    if (!apps) charts.set(key, (apps = topChart(catalogue, kind, front, genre)));
    return apps;
  };
  return [
    (r) => legacyChart(catalogue, r, baseUrl(), chart),
    (r) => marketingChart(catalogue, r, baseUrl(), chart),
    (r) => ratingsPage(catalogue, r),
    (r) => (r.path === HINTS_PATH ? hints(catalogue, r, baseUrl()) : undefined),
  ];
}

type ChartOf = (kind: ChartKind, front: Storefront, genre?: number) => App[];

function legacyChart(
  catalogue: Catalogue,
  request: EmulatorRequest,
  base: string,
  chart: ChartOf,
): EmulatorResponse | undefined {
  const match = LEGACY_CHART_PATH.exec(request.path);
  if (!match) return undefined;
  const [, cc, name, optionText] = match;
  const options = pathOptions(optionText);
  const limit = Math.min(
    CHART_MAX_ENTRIES,
    Number(options.get('limit') ?? LEGACY_DEFAULT_LIMIT) || LEGACY_DEFAULT_LIMIT,
  );
  const genreText = options.get('genre');
  const genre = genreText === undefined ? undefined : Number(genreText);
  if (genre !== undefined && !Number.isInteger(genre)) return empty(400);
  const feed = LEGACY_FEEDS[name.toLowerCase()];
  const front = storefront(cc.toLowerCase());
  const apps = front ? chart(feed.kind, front, genre).slice(0, limit) : [];
  return json(200, legacyChartJson(catalogue, apps, front, `${base}${request.path}`, feed.title));
}

function marketingChart(
  catalogue: Catalogue,
  request: EmulatorRequest,
  base: string,
  chart: ChartOf,
): EmulatorResponse | undefined {
  const match = MARKETING_CHART_PATH.exec(request.path);
  if (!match) return undefined;
  const [, cc, name, limitText] = match;
  const feed = MARKETING_FEEDS[name];
  if (!feed) return json(404, { message: 'Feed not found' });
  const limit = Number(limitText);
  if (limit < 1 || limit > MARKETING_MAX_LIMIT) return json(500, { message: 'Internal Server Error' });
  const front = storefront(cc);
  if (!front) return json(404, { message: 'Storefront not found' });
  return json(
    200,
    marketingChartJson(catalogue, chart(feed.kind, front).slice(0, limit), front, `${base}${request.path}`, feed.title),
  );
}

/**
 * `/{cc}/customer-reviews/id{N}?displayable-kind=11`: the storefront is the `X-Apple-Store-Front`
 * header's; JSON for the `,29` platform, the older HTML otherwise; 404 with no body for an app not sold there.
 */
function ratingsPage(catalogue: Catalogue, request: EmulatorRequest): EmulatorResponse | undefined {
  const match = RATINGS_PATH.exec(request.path);
  if (!match) return undefined;
  const header = readStoreFrontHeader(request.headers['x-apple-store-front']);
  const front = header ? header.front : storefront(match[1]);
  const app = front ? catalogue.app(Number(match[2]), front) : undefined;
  if (!app || !front) return empty(404);
  const rating = catalogue.rating(app, front);
  const summary: RatingsSummary = {
    adamId: app.trackId,
    ratingAverage: Math.round(rating.average * 10) / 10,
    ratingCount: rating.count,
    ratingCountList: ratingHistogram(catalogue, app, front),
    totalNumberOfReviews: Math.max(catalogue.reviewCount(app, front), Math.round(rating.count * 0.04)),
  };
  if (header?.platform === JSON_PLATFORM) return json(200, summary);
  return text(200, ratingsHtml(summary), 'text/html; charset=utf-8');
}

/** Without a storefront header the hints are an empty list, as scrapers report (2025). */
function hints(catalogue: Catalogue, request: EmulatorRequest, base: string): EmulatorResponse {
  const header = readStoreFrontHeader(request.headers['x-apple-store-front']);
  const term = request.query.get('term') ?? '';
  const found = header?.front ? searchHints(catalogue, term, header.front) : [];
  const searchUrl = (t: string) =>
    `${base}/WebObjects/MZStore.woa/wa/search?clientApplication=Software&media=software&src=hint&submit=edit&term=${encodeURIComponent(t)}`;
  return text(200, searchHintsPlist(found, searchUrl), 'text/xml; charset=UTF-8');
}
