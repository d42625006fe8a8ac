import {
  type CatalogQuery,
  type NetworkSet,
  PRICE_PER_CALL_MICROS,
  type RouteId,
  type StoreId,
} from '@appcat/contracts';
import { getMetadataStorage } from 'class-validator';
import {
  AppIdParamDto,
  BundleIdParamDto,
  ChartParamDto,
  ChartQueryDto,
  CountryQueryDto,
  DeveloperIdParamDto,
  LookupQueryDto,
  NoQueryDto,
  PlayAppIdParamDto,
  PlayDeveloperIdParamDto,
  PlayDeveloperQueryDto,
  PlayReviewsQueryDto,
  ReviewsQueryDto,
  SearchQueryDto,
  SuggestionsQueryDto,
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
  /** The store whose address serves it. */
  store: StoreId;
  id: RouteId;
  /** Path as the spec writes it: `/api/apps/{appId}`. */
  path: string;
  /** One-line description (x402 resource description, docs, MCP tool description). */
  description: string;
  /** Price in µUSD. */
  price: bigint;
  networks: NetworkSet;
  /** Path parameter names, in path order: read from `path`. */
  pathParams: readonly string[];
  /** Query parameter names, in documented order: the properties `queryDto` checks, as declared. */
  queryParams: readonly string[];
  pathDto: Ctor | null;
  queryDto: Ctor;
  /** Builds the catalog query from validated parameters, applying defaults and normalising case. */
  toCatalogQuery(params: RouteParams): CatalogQuery;
}

/** What a route is written with; its parameter names and catalog query follow from the path and the DTOs. */
type RouteSpec = Pick<PricedRoute, 'store' | 'id' | 'path' | 'description' | 'networks' | 'pathDto' | 'queryDto'>;

/** How each parameter reaches the catalog query: defaults applied, case normalised; others as given. */
const NORMALISE: Readonly<Record<string, (value: string | undefined) => string | number | undefined>> = {
  term: (v) => v?.trim(),
  page: (v) => (v === undefined ? ParamDefaults.page : Number.parseInt(v, 10)),
  country: (v) => (v ?? ParamDefaults.country).toLowerCase(),
  lang: (v) => v?.toLowerCase().replace(/_/g, '-'),
  sort: (v) => v ?? ParamDefaults.sort,
};

/** The properties a DTO checks, in the order they are declared. */
function checkedProperties(dto: Ctor | null): string[] {
  if (!dto) return [];
  const metadata = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  return [...new Set(metadata.map((m) => m.propertyName))];
}

/**
 * A route from its spec: the path parameters are the template's `{names}` and must be exactly what the
 * path DTO checks (a name on one side only would be validated as missing on every call, or documented
 * nowhere); the query parameters are what the query DTO checks.
 */
export function pricedRoute(spec: RouteSpec): PricedRoute {
  const pathParams = [...spec.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const checked = checkedProperties(spec.pathDto);
  if (checked.length !== pathParams.length || checked.some((name) => !pathParams.includes(name)))
    throw new Error(
      `${spec.id}: ${spec.path} names {${pathParams.join(', ')}}, its path DTO checks ${checked.join(', ')}`,
    );
  const queryParams = checkedProperties(spec.queryDto);
  const names = [...pathParams, ...queryParams];
  return {
    ...spec,
    price: PRICE_PER_CALL_MICROS,
    pathParams,
    queryParams,
    toCatalogQuery: (params) => {
      const query: Record<string, string | number | undefined> = { route: spec.id };
      for (const name of names) query[name] = NORMALISE[name] ? NORMALISE[name](params[name]) : params[name];
      return query as unknown as CatalogQuery;
    },
  };
}

/** The App Store's routes: the nine of the spec, then the store facts (issue #32). */
const APPLE_ROUTES: readonly PricedRoute[] = [
  pricedRoute({
    store: 'apple',
    id: 'apps.search',
    path: '/api/apps',
    description: 'Search App Store apps by term',
    networks: 'standard',
    pathDto: null,
    queryDto: SearchQueryDto,
  }),
  pricedRoute({
    store: 'apple',
    id: 'apps.get',
    path: '/api/apps/{appId}',
    description: 'Get one App Store app by id or bundle identifier',
    networks: 'standard',
    pathDto: AppIdParamDto,
    queryDto: LookupQueryDto,
  }),
  pricedRoute({
    store: 'apple',
    id: 'apps.reviews',
    path: '/api/apps/{appId}/reviews',
    description: 'Customer reviews of an App Store app',
    networks: 'standard',
    pathDto: AppIdParamDto,
    queryDto: ReviewsQueryDto,
  }),
  pricedRoute({
    store: 'apple',
    id: 'apps.similar',
    path: '/api/apps/{appId}/similar',
    description: 'Apps similar to an App Store app',
    networks: 'standard',
    pathDto: AppIdParamDto,
    queryDto: LookupQueryDto,
  }),
  pricedRoute({
    store: 'apple',
    id: 'bundles.search',
    path: '/api/bundles',
    description: 'Search App Store app bundles by term',
    networks: 'standard',
    pathDto: null,
    queryDto: SearchQueryDto,
  }),
  pricedRoute({
    store: 'apple',
    id: 'bundles.get',
    path: '/api/bundles/{bundleId}',
    description: 'Get one App Store app bundle by id',
    networks: 'standard',
    pathDto: BundleIdParamDto,
    queryDto: LookupQueryDto,
  }),
  pricedRoute({
    store: 'apple',
    id: 'bundles.reviews',
    path: '/api/bundles/{bundleId}/reviews',
    description: 'Customer reviews of the apps in an App Store app bundle',
    networks: 'standard',
    pathDto: BundleIdParamDto,
    queryDto: ReviewsQueryDto,
  }),
  pricedRoute({
    store: 'apple',
    id: 'bundles.similar',
    path: '/api/bundles/{bundleId}/similar',
    description: 'Apps similar to the apps in an App Store app bundle',
    networks: 'standard',
    pathDto: BundleIdParamDto,
    queryDto: LookupQueryDto,
  }),
  pricedRoute({
    store: 'apple',
    id: 'developers.get',
    path: '/api/developers/{developerId}',
    description: 'An App Store developer and their apps',
    networks: 'extended',
    pathDto: DeveloperIdParamDto,
    queryDto: NoQueryDto,
  }),
  pricedRoute({
    store: 'apple',
    id: 'apps.ratings',
    path: '/api/apps/{appId}/ratings',
    description: 'Star ratings of an App Store app in one storefront: average, count and 1-5 star histogram',
    networks: 'standard',
    pathDto: AppIdParamDto,
    queryDto: CountryQueryDto,
  }),
  pricedRoute({
    store: 'apple',
    id: 'apps.privacy',
    path: '/api/apps/{appId}/privacy',
    description: 'Privacy label of an App Store app: the data it collects, how it is linked and what for',
    networks: 'standard',
    pathDto: AppIdParamDto,
    queryDto: LookupQueryDto,
  }),
  pricedRoute({
    store: 'apple',
    id: 'apps.versions',
    path: '/api/apps/{appId}/versions',
    description: 'Version history of an App Store app, newest first, with release notes',
    networks: 'standard',
    pathDto: AppIdParamDto,
    queryDto: LookupQueryDto,
  }),
  pricedRoute({
    store: 'apple',
    id: 'charts.get',
    path: '/api/charts/{chart}',
    description: 'An App Store top chart (free, paid or grossing) of a storefront, overall or for one genre',
    networks: 'standard',
    pathDto: ChartParamDto,
    queryDto: ChartQueryDto,
  }),
  pricedRoute({
    store: 'apple',
    id: 'suggestions.search',
    path: '/api/suggestions',
    description: 'Search suggestions the App Store offers for what a user has typed so far',
    networks: 'standard',
    pathDto: null,
    queryDto: SuggestionsQueryDto,
  }),
];

/** Google Play's routes: the sibling catalog of spec §1 (Play has no app bundles). */
const GOOGLE_PLAY_ROUTES: readonly PricedRoute[] = [
  pricedRoute({
    store: 'google-play',
    id: 'apps.search',
    path: '/api/apps',
    description: 'Search Google Play apps by term',
    networks: 'standard',
    pathDto: null,
    queryDto: SearchQueryDto,
  }),
  pricedRoute({
    store: 'google-play',
    id: 'apps.get',
    path: '/api/apps/{appId}',
    description: 'Get one Google Play app by package name',
    networks: 'standard',
    pathDto: PlayAppIdParamDto,
    queryDto: LookupQueryDto,
  }),
  pricedRoute({
    store: 'google-play',
    id: 'apps.reviews',
    path: '/api/apps/{appId}/reviews',
    description: 'User reviews of a Google Play app',
    networks: 'standard',
    pathDto: PlayAppIdParamDto,
    queryDto: PlayReviewsQueryDto,
  }),
  pricedRoute({
    store: 'google-play',
    id: 'apps.similar',
    path: '/api/apps/{appId}/similar',
    description: 'Apps similar to a Google Play app',
    networks: 'standard',
    pathDto: PlayAppIdParamDto,
    queryDto: LookupQueryDto,
  }),
  pricedRoute({
    store: 'google-play',
    id: 'developers.get',
    path: '/api/developers/{developerId}',
    description: "A Google Play developer's apps",
    networks: 'extended',
    pathDto: PlayDeveloperIdParamDto,
    queryDto: PlayDeveloperQueryDto,
  }),
];

/** One store's priced routes, served at that store's own address. */
export interface RouteTable {
  store: StoreId;
  /** The store as documents name it. */
  storeName: string;
  /** What its routes cover, as the documents' summary lists it. */
  covers: string;
  routes: readonly PricedRoute[];
}

/** The route table holds one table per store. */
export const ROUTE_TABLES: Readonly<Record<StoreId, RouteTable>> = {
  apple: {
    store: 'apple',
    storeName: 'App Store',
    covers:
      'apps, bundles, reviews, similar items, developers, ratings, privacy labels, version histories, top charts, search suggestions',
    routes: APPLE_ROUTES,
  },
  'google-play': {
    store: 'google-play',
    storeName: 'Google Play',
    covers: 'apps, reviews, similar apps, developers',
    routes: GOOGLE_PLAY_ROUTES,
  },
};
/** The App Store's routes, the table of the first address (the spec's nine endpoints and the store facts). */
/** The App Store's routes, the table of the first address (what the spec's nine endpoints are). */
export const PRICED_ROUTES: readonly PricedRoute[] = APPLE_ROUTES;

/** Every store's routes, each its own object. */
export const ALL_PRICED_ROUTES: readonly PricedRoute[] = Object.values(ROUTE_TABLES).flatMap((t) => t.routes);

/** The free MCP tool: what the key sent as `Authorization: Bearer` has left. */
export const MCP_BALANCE_TOOL_NAME = 'credits_balance';

/** A route's MCP tool name, `apps.search` → `apps_search`: MCP clients expect tool names without dots. */
export function mcpToolName(route: PricedRoute): string {
  return route.id.replace(/\./g, '_');
}

const SEGMENTS = new WeakMap<readonly PricedRoute[], { route: PricedRoute; segments: string[] }[]>();

function segmentsOf(routes: readonly PricedRoute[]) {
  let table = SEGMENTS.get(routes);
  if (!table) SEGMENTS.set(routes, (table = routes.map((route) => ({ route, segments: route.path.split('/') }))));
  return table;
}

/**
 * The priced route of `routes` (the App Store's by default) a request path (no query) names, with its path parameters percent-decoded (left as
 * sent when malformed): `/api/apps/284882215/reviews` → apps.reviews, `{appId: '284882215'}`.
 */
export function matchPricedRoute(
  path: string,
  routes: readonly PricedRoute[] = PRICED_ROUTES,
): { route: PricedRoute; params: Record<string, string> } | undefined {
  const segments = path.split('/');
  for (const { route, segments: template } of segmentsOf(routes)) {
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
