import type { Catalogue } from '../catalogue/catalogue.js';
import { generateReviews, sortReviews } from '../catalogue/reviews.js';
import { storefront } from '../catalogue/storefronts.js';
import type { DriftSettings } from '../control/drift.js';
import { empty, json, type EmulatorRequest, type Route } from '../http.js';
import { userReviewResource } from '../render/amp-resources.js';
import { apiError, catalogueAnswer } from './amp-api.js';

const SAME_ORIGIN_PATH =
  /^\/api\/apps\/v1\/catalog\/([^/]+)\/(apps|app-bundles|search|developers)(?:\/([^/]+))?(\/reviews)?$/;
/** The reviews endpoint gives at most this many a request, as public code pages it. */
const REVIEWS_MAX_LIMIT = 20;

/** What a browser sends; curl's default agent, an iTunes agent or none is not one. */
export function isBrowserAgent(userAgent: string | undefined): boolean {
  return userAgent !== undefined && /^Mozilla\/5\.0 \(/.test(userAgent) && /(Safari|Chrome|Firefox)\//.test(userAgent);
}

/**
 * The catalogue apps.apple.com reads through its own origin (`/api/apps/v1/catalog/{cc}/…`, 2026):
 * no bearer token; `platform=web` required (400 without) and a browser's agent expected (429 for
 * others) unless the drift says `sameOrigin: "open"`. One app (with `include`), its reviews (`offset`,
 * `limit` ≤ 20, `sort`) and a developer are what public code shows it serving; bundles, search and
 * `?ids=` only with `sameOriginScope: "all"`.
 */
export function sameOriginRoutes(catalogue: Catalogue, drift: () => DriftSettings): Route[] {
  return [
    (request) => {
      const match = SAME_ORIGIN_PATH.exec(request.path);
      if (!match) return undefined;
      const settings = drift();
      const [, cc, collection, id, reviews] = match;
      if (settings.sameOrigin === 'strict') {
        if (request.query.get('platform') !== 'web')
          return apiError(400, 'Invalid Parameter Value', 'Parameter "platform" is required', request.path);
        if (!isBrowserAgent(request.headers['user-agent'])) return { ...empty(429), headers: { 'retry-after': '60' } };
      }
      if (reviews) return collection === 'apps' && id ? reviewsPage(catalogue, request, cc, id) : undefined;
      const proven = (collection === 'apps' || collection === 'developers') && id !== undefined;
      if (!proven && settings.sameOriginScope !== 'all')
        return apiError(404, 'Resource Not Found', 'Resource with requested id was not found', request.path);
      return catalogueAnswer(catalogue, request, { cc, collection, id }, settings);
    },
  ];
}

function reviewsPage(catalogue: Catalogue, request: EmulatorRequest, cc: string, id: string) {
  const front = storefront(cc);
  const app = front && /^\d{1,19}$/.test(id) ? catalogue.app(Number(id), front) : undefined;
  if (!front || !app)
    return apiError(404, 'Resource Not Found', 'Resource with requested id was not found', request.path);
  const offset = Number(request.query.get('offset') ?? '0');
  const limit = Number(request.query.get('limit') ?? '10');
  if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(limit) || limit < 1 || limit > REVIEWS_MAX_LIMIT)
    return apiError(400, 'Invalid Parameter Value', 'Parameter "offset" or "limit" is not valid', request.path);
  const sort = (request.query.get('sort') ?? 'recent').toLowerCase() === 'mosthelpful' ? 'mostHelpful' : 'mostRecent';
  const all = sortReviews(generateReviews(catalogue, app, front), sort);
  const data = all.slice(offset, offset + limit).map(userReviewResource);
  const next =
    offset + limit < all.length
      ? { next: `/v1/catalog/${cc}/apps/${id}/reviews?offset=${offset + limit}&limit=${limit}` }
      : {};
  return json(200, { ...next, data });
}
