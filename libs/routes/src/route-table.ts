import {
  type CatalogQuery,
  type NetworkSet,
  PRICE_PER_CALL_MICROS,
  type ReviewSort,
  type RouteId,
} from '@appcat/contracts';
import { getMetadataStorage } from 'class-validator';
import {
  AppIdParamDto,
  BundleIdParamDto,
  DeveloperIdParamDto,
  LookupQueryDto,
  NoQueryDto,
  ReviewsQueryDto,
  SearchQueryDto,
} from './dtos.js';
import { ParamDefaults } from './param-rules.js';

/** Validated, normalised parameters of a route, keyed by name. */
export type RouteParams = Record<string, string | undefined>;

type Ctor = new () => object;

/**
 * One priced route. The gateway registers exactly these, and the docs pages, OpenAPI document and MCP
 * tools are generated from them: a route that is not here does not exist anywhere.
 */
export interface PricedRoute {
  id: RouteId;
  /** Path as the spec writes it: `/api/apps/{appId}`. */
  path: string;
  /** One-line description (x402 resource description, docs, MCP tool description). */
  description: string;
  /** Price in µUSD. */
  price: bigint;
  networks: NetworkSet;
  /** Path parameter names, in path order. */
  pathParams: readonly string[];
  /** Query parameter names, in documented order. */
  queryParams: readonly string[];
  pathDto: Ctor | null;
  queryDto: Ctor;
  /** Builds the catalog query from validated parameters, applying defaults and normalising case. */
  toCatalogQuery(params: RouteParams): CatalogQuery;
}

const country = (p: RouteParams) => (p.country ?? ParamDefaults.country).toLowerCase();
const lang = (p: RouteParams) => (p.lang === undefined ? undefined : p.lang.toLowerCase().replace(/_/g, '-'));
const page = (p: RouteParams) => (p.page === undefined ? ParamDefaults.page : Number.parseInt(p.page, 10));
const sort = (p: RouteParams) => (p.sort ?? ParamDefaults.sort) as ReviewSort;
const req = (p: RouteParams, name: string) => p[name] as string;

const route = (r: Omit<PricedRoute, 'price'>): PricedRoute => ({ ...r, price: PRICE_PER_CALL_MICROS });

export const PRICED_ROUTES: readonly PricedRoute[] = [
  route({
    id: 'apps.search',
    path: '/api/apps',
    description: 'Search App Store apps by term',
    networks: 'standard',
    pathParams: [],
    queryParams: ['term', 'page', 'country', 'lang'],
    pathDto: null,
    queryDto: SearchQueryDto,
    toCatalogQuery: (p) => ({
      route: 'apps.search',
      term: req(p, 'term').trim(),
      page: page(p),
      country: country(p),
      lang: lang(p),
    }),
  }),
  route({
    id: 'apps.get',
    path: '/api/apps/{appId}',
    description: 'Get one App Store app by id or bundle identifier',
    networks: 'standard',
    pathParams: ['appId'],
    queryParams: ['country', 'lang'],
    pathDto: AppIdParamDto,
    queryDto: LookupQueryDto,
    toCatalogQuery: (p) => ({ route: 'apps.get', appId: req(p, 'appId'), country: country(p), lang: lang(p) }),
  }),
  route({
    id: 'apps.reviews',
    path: '/api/apps/{appId}/reviews',
    description: 'Customer reviews of an App Store app',
    networks: 'standard',
    pathParams: ['appId'],
    queryParams: ['page', 'country', 'sort'],
    pathDto: AppIdParamDto,
    queryDto: ReviewsQueryDto,
    toCatalogQuery: (p) => ({
      route: 'apps.reviews',
      appId: req(p, 'appId'),
      page: page(p),
      country: country(p),
      sort: sort(p),
    }),
  }),
  route({
    id: 'apps.similar',
    path: '/api/apps/{appId}/similar',
    description: 'Apps similar to an App Store app',
    networks: 'standard',
    pathParams: ['appId'],
    queryParams: ['country', 'lang'],
    pathDto: AppIdParamDto,
    queryDto: LookupQueryDto,
    toCatalogQuery: (p) => ({ route: 'apps.similar', appId: req(p, 'appId'), country: country(p), lang: lang(p) }),
  }),
  route({
    id: 'bundles.search',
    path: '/api/bundles',
    description: 'Search App Store app bundles by term',
    networks: 'standard',
    pathParams: [],
    queryParams: ['term', 'page', 'country', 'lang'],
    pathDto: null,
    queryDto: SearchQueryDto,
    toCatalogQuery: (p) => ({
      route: 'bundles.search',
      term: req(p, 'term').trim(),
      page: page(p),
      country: country(p),
      lang: lang(p),
    }),
  }),
  route({
    id: 'bundles.get',
    path: '/api/bundles/{bundleId}',
    description: 'Get one App Store app bundle by id',
    networks: 'standard',
    pathParams: ['bundleId'],
    queryParams: ['country', 'lang'],
    pathDto: BundleIdParamDto,
    queryDto: LookupQueryDto,
    toCatalogQuery: (p) => ({ route: 'bundles.get', bundleId: req(p, 'bundleId'), country: country(p), lang: lang(p) }),
  }),
  route({
    id: 'bundles.reviews',
    path: '/api/bundles/{bundleId}/reviews',
    description: 'Customer reviews of the apps in an App Store app bundle',
    networks: 'standard',
    pathParams: ['bundleId'],
    queryParams: ['page', 'country', 'sort'],
    pathDto: BundleIdParamDto,
    queryDto: ReviewsQueryDto,
    toCatalogQuery: (p) => ({
      route: 'bundles.reviews',
      bundleId: req(p, 'bundleId'),
      page: page(p),
      country: country(p),
      sort: sort(p),
    }),
  }),
  route({
    id: 'bundles.similar',
    path: '/api/bundles/{bundleId}/similar',
    description: 'Apps similar to the apps in an App Store app bundle',
    networks: 'standard',
    pathParams: ['bundleId'],
    queryParams: ['country', 'lang'],
    pathDto: BundleIdParamDto,
    queryDto: LookupQueryDto,
    toCatalogQuery: (p) => ({
      route: 'bundles.similar',
      bundleId: req(p, 'bundleId'),
      country: country(p),
      lang: lang(p),
    }),
  }),
  route({
    id: 'developers.get',
    path: '/api/developers/{developerId}',
    description: 'An App Store developer and their apps',
    networks: 'extended',
    pathParams: ['developerId'],
    queryParams: [],
    pathDto: DeveloperIdParamDto,
    queryDto: NoQueryDto,
    toCatalogQuery: (p) => ({ route: 'developers.get', developerId: req(p, 'developerId') }),
  }),
];

/**
 * Throws unless every property `dto` checks is one of `names`, the route's parameters in that place:
 * another would be validated as missing on every call, and documented nowhere.
 */
export function assertDtoFitsRoute(route: PricedRoute, dto: Ctor, names: readonly string[]): void {
  for (const { propertyName } of getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false)) {
    if (!names.includes(propertyName))
      throw new Error(`${dto.name}.${propertyName} is checked but is not a parameter of ${route.id}`);
  }
}

/** The free MCP tool: what the key sent as `Authorization: Bearer` has left. */
export const MCP_BALANCE_TOOL_NAME = 'credits_balance';

/** A route's MCP tool name, `apps.search` → `apps_search`: MCP clients expect tool names without dots. */
export function mcpToolName(route: PricedRoute): string {
  return route.id.replace(/\./g, '_');
}

const ROUTE_SEGMENTS = PRICED_ROUTES.map((route) => ({ route, segments: route.path.split('/') }));

/**
 * The priced route a request path (no query) names, with its path parameters percent-decoded (left as
 * sent when malformed): `/api/apps/284882215/reviews` → apps.reviews, `{appId: '284882215'}`.
 */
export function matchPricedRoute(path: string): { route: PricedRoute; params: Record<string, string> } | undefined {
  const segments = path.split('/');
  for (const { route, segments: template } of ROUTE_SEGMENTS) {
    if (template.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const fits = template.every((part, i) => {
      if (!part.startsWith('{')) return part === segments[i];
      params[part.slice(1, -1)] = decodeSegment(segments[i]);
      return segments[i] !== '';
    });
    if (fits) return { route, params };
  }
  return undefined;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
