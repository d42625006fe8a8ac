import type { Catalogue } from '../catalogue/catalogue.js';
import { hash } from '../catalogue/random.js';
import { storefront, type Storefront } from '../catalogue/storefronts.js';
import { empty, json, type EmulatorRequest, type EmulatorResponse, type Route } from '../http.js';
import type { DriftSettings } from '../control/drift.js';
import { appResource, bundleResource, developerResource, type Resource } from '../render/amp-resources.js';

const SEARCH_MAX_LIMIT = 25;
const SEARCH_TYPES = ['apps', 'app-bundles'] as const;

export function apiError(status: number, title: string, detail: string, seed: string): EmulatorResponse {
  const id = hash(status, ...Array.from(seed, (c) => c.charCodeAt(0)))
    .toString(16)
    .toUpperCase()
    .padStart(8, '0');
  return json(status, {
    errors: [{ id: `${id}AMPEMULATOR`, title, detail, status: String(status), code: `${status}00` }],
  });
}

function includes(query: URLSearchParams, name: string): boolean {
  return (query.get('include') ?? '')
    .split(',')
    .map((s) => s.trim())
    .includes(name);
}

const CATALOG_PATH = /^\/v1\/catalog\/([^/]+)\/(apps|app-bundles|search)(?:\/([^/]+))?$/;

/**
 * The web catalogue (amp-api.apps.apple.com), JSON:API. Every request needs the bearer token that
 * the apps.apple.com pages carry; without it (or with an old one) the answer is 401 with no body.
 */
export function ampApiRoutes(catalogue: Catalogue, currentToken: () => string, drift: () => DriftSettings): Route[] {
  return [
    (request) => {
      const match = CATALOG_PATH.exec(request.path);
      if (!match) return undefined;
      if (request.headers.authorization !== `Bearer ${currentToken()}`) return empty(401);
      const [, cc, collection, id] = match;
      return catalogueAnswer(catalogue, request, { cc, collection, id }, drift());
    },
  ];
}

/** One request of the catalogue, by either door (amp-api or the site's same-origin path). */
export function catalogueAnswer(
  catalogue: Catalogue,
  request: EmulatorRequest,
  target: { cc: string; collection: string; id: string | undefined },
  drift: DriftSettings,
): EmulatorResponse | undefined {
  const { cc, collection, id } = target;
  if (!/^[a-z]{2}$/.test(cc))
    return apiError(400, 'Invalid Storefront', `Storefront "${cc}" is not valid`, request.path);
  const front = storefront(cc);
  if (collection === 'search') return id === undefined ? search(catalogue, front, request, drift) : undefined;
  const includeRelated =
    collection === 'apps' ? includes(request.query, 'customers-also-bought-apps') : includes(request.query, 'apps');
  const render = (itemId: string): Resource | undefined => {
    if (!front || !/^\d{1,19}$/.test(itemId)) return undefined;
    if (collection === 'apps') {
      const app = catalogue.app(Number(itemId), front);
      return (
        app &&
        appResource(catalogue, app, front, {
          similar: includeRelated ? sparseLimit(request.query, 'apps:customers-also-bought-apps') : undefined,
          extend: listParam(request.query, 'extend'),
          fields: request.query.has('fields') ? listParam(request.query, 'fields') : undefined,
        })
      );
    }
    if (collection === 'developers') {
      const developer = catalogue.developer(Number(itemId), front);
      return developer && developerResource(catalogue, developer, front, { apps: includeRelated });
    }
    const bundle = catalogue.bundle(Number(itemId), front);
    return bundle && bundleResource(catalogue, bundle, front, { apps: includeRelated });
  };
  if (id !== undefined) {
    if (!/^\d{1,19}$/.test(id))
      return apiError(
        400,
        'Invalid Parameter Value',
        `Resource id "${decodeURIComponent(id)}" is not valid`,
        request.path,
      );
    const resource = render(id);
    return resource
      ? json(200, { data: [resource] })
      : apiError(404, 'Resource Not Found', 'Resource with requested id was not found', request.path);
  }
  const ids = (request.query.get('ids') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (ids.length === 0) return apiError(400, 'Missing Parameter', 'Parameter "ids" is required', request.path);
  return json(200, { data: ids.map(render).filter((r): r is Resource => r !== undefined) });
}

function listParam(query: URLSearchParams, name: string): string[] {
  return (query.get(name) ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** `sparseLimit[type:relationship]=N` caps a relationship's items; without it, all of them. */
function sparseLimit(query: URLSearchParams, key: string): number {
  const value = Number(query.get(`sparseLimit[${key}]`) ?? NaN);
  return Number.isInteger(value) && value > 0 ? value : Number.MAX_SAFE_INTEGER;
}

function search(
  catalogue: Catalogue,
  front: Storefront | undefined,
  request: EmulatorRequest,
  drift: DriftSettings,
): EmulatorResponse {
  const { query } = request;
  const term = query.get('term') ?? '';
  if (term.trim() === '') return apiError(400, 'Missing Parameter', 'Parameter "term" is required', request.path);
  const limitText = query.get('limit') ?? '5';
  const offsetText = query.get('offset') ?? '0';
  const limit = Number(limitText);
  const offset = Number(offsetText);
  if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_MAX_LIMIT) {
    return apiError(
      400,
      'Invalid Parameter Value',
      `Parameter "limit" must be between 1 and ${SEARCH_MAX_LIMIT}`,
      request.path,
    );
  }
  if (!Number.isInteger(offset) || offset < 0)
    return apiError(400, 'Invalid Parameter Value', 'Parameter "offset" is not valid', request.path);
  const types = (query.get('types') ?? 'apps')
    .split(',')
    .map((s) => s.trim())
    .filter((t): t is (typeof SEARCH_TYPES)[number] => (SEARCH_TYPES as readonly string[]).includes(t));
  const results: Record<string, unknown> = {};
  for (const type of types) {
    if (!front) continue;
    let total: number;
    let data: Resource[];
    if (type === 'apps') {
      const apps = catalogue.searchApps(term, front);
      total = apps.length;
      data = apps.slice(offset, offset + limit).map((a) => appResource(catalogue, a, front));
    } else {
      const bundles = catalogue.searchBundles(term, front);
      total = bundles.length;
      data = bundles.slice(offset, offset + limit).map((b) => bundleResource(catalogue, b, front));
    }
    if (data.length === 0) continue;
    const href = (at: number) =>
      `/v1/catalog/${front.code}/search?limit=${limit}&offset=${at}&term=${encodeURIComponent(term)}&types=${type}`;
    results[type] = { href: href(offset), ...(offset + limit < total ? { next: href(offset + limit) } : {}), data };
  }
  if (drift.searchGrouping === 'unknown') {
    // Every type in one list under a name the catalog has never seen.
    const data = Object.values(results).flatMap((group) => (group as { data: Resource[] }).data);
    const grouped =
      data.length === 0
        ? {}
        : { top: { href: `/v1/catalog/${front?.code ?? 'us'}/search?term=${encodeURIComponent(term)}`, data } };
    return json(200, {
      results: grouped,
      meta: { results: { order: Object.keys(grouped), rawOrder: Object.keys(grouped) } },
    });
  }
  return json(200, { results, meta: { results: { order: Object.keys(results), rawOrder: Object.keys(results) } } });
}
