import { ErrorCode, type StoreId } from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import { type PricedRoute, ROUTE_TABLES, type RouteParams } from '@appcat/routes';
import { APPLE_SOURCES, type SourcedRoute } from '../apple/apple-sources.js';
import { AppleStoreAdapter } from '../apple/apple-store-adapter.js';
import type { AppleStoreConfig, GooglePlayConfig } from '../config.js';
import { GooglePlayStoreAdapter } from '../google-play/google-play-store-adapter.js';
import { fetchFromStore, type StoreAdapter } from '../store/store-adapter.js';
import { UNTRACKED } from '../cache/provenance.js';
import type { UpstreamHttpClient } from '../upstream/upstream-http-client.js';

/** One well-known item per operation: what each priced route is asked for. */
export interface WellKnownItems {
  appId: string;
  bundleId: string;
  developerId: string;
  /** Google Play's developer: its numeric id or its name. */
  playDeveloperId: string;
  /** Google Play's app: its package name. */
  playAppId: string;
  /** Google Play's search term. */
  playTerm: string;
  appTerm: string;
  bundleTerm: string;
  /** What a user has typed, for the search suggestions. */
  prefix: string;
  country: string;
}

/**
 * Facebook, Meta Essentials and Meta Platforms, and Google LLC on Google Play: sold in the US for
 * years, and in the store emulator whatever its seed.
 */
export const DEFAULT_ITEMS: Readonly<WellKnownItems> = Object.freeze({
  appId: '284882215',
  bundleId: '1482985563',
  developerId: '284882218',
  playDeveloperId: '5700313618786177705',
  playAppId: 'com.mojang.minecraftpe',
  playTerm: 'minecraft',
  appTerm: 'facebook',
  bundleTerm: 'meta',
  prefix: 'face',
  country: 'us',
});

export type RouteCheckStatus = 'ok' | 'drift' | 'unreachable';

export interface SourceCheck {
  source: string;
  status: RouteCheckStatus;
  detail: string;
}

export interface RouteCheck {
  store: StoreId;
  /** The route table's path template, `/api/apps/{appId}`. */
  route: string;
  /** `ok` when some source works; otherwise `drift` if a source answered something we cannot use, else `unreachable`. */
  status: RouteCheckStatus;
  /** Which source the route relies on now (the first working one in the configured order) and what it gave. */
  detail: string;
  /** Every source of the route, each checked alone, in the route's default order (Google Play has one). */
  sources: SourceCheck[];
}

/** The chain whose sources an App Store route varies: the bundle reviews and similar routes read the app ones'. */
const SOURCED_BY: Record<string, SourcedRoute> = {
  'apps.search': 'apps.search',
  'apps.get': 'apps.get',
  'apps.reviews': 'apps.reviews',
  'apps.similar': 'apps.similar',
  'bundles.search': 'bundles.search',
  'bundles.get': 'bundles.get',
  'bundles.reviews': 'apps.reviews',
  'bundles.similar': 'apps.similar',
  'developers.get': 'developers.get',
  'apps.ratings': 'apps.ratings',
  'apps.privacy': 'apps.privacy',
  'apps.versions': 'apps.privacy',
  'charts.get': 'charts.get',
  'suggestions.search': 'suggestions.search',
};

/** Failures that say nothing about the answer's shape: the upstream could not be asked. */
const UNREACHABLE: ReadonlySet<string> = new Set([
  ErrorCode.UpstreamTimeout,
  ErrorCode.UpstreamUnreachable,
  ErrorCode.UpstreamThrottled,
]);

function classify(error: unknown): { status: RouteCheckStatus; detail: string } {
  if (!(error instanceof WireException))
    return { status: 'drift', detail: error instanceof Error ? error.message : String(error) };
  if (UNREACHABLE.has(error.code)) return { status: 'unreachable', detail: error.message };
  // A 5xx is the upstream failing; any other status (a page gone, a 401 that survives a new token) is drift.
  if (error.code === ErrorCode.UpstreamHttpError && /HTTP 5\d\d/.test(error.message))
    return { status: 'unreachable', detail: error.message };
  return { status: 'drift', detail: error.message };
}

function paramsFor(route: PricedRoute, items: WellKnownItems): RouteParams {
  const routeId = route.id;
  return {
    appId: route.store === 'google-play' ? items.playAppId : items.appId,
    bundleId: items.bundleId,
    developerId: route.store === 'google-play' ? items.playDeveloperId : items.developerId,
    term:
      route.store === 'google-play'
        ? items.playTerm
        : routeId === 'bundles.search'
          ? items.bundleTerm
          : routeId === 'suggestions.search'
            ? items.prefix
            : items.appTerm,
    country: items.country,
    page: '1',
    // The overall free chart: the one both chart sources have.
    chart: 'top-free',
  };
}

/**
 * Asks the configured App Store for one well-known item per priced route, through every source of the
 * route alone, and reads each answer with the catalog's own adapter, uncached and one at a time (so
 * what an answer held is told apart per source). A source is `ok` when it answered records and nothing
 * had to be read past; `drift` when the answer could not be read, was empty (or implausible) for an
 * item that exists, or held something we skip; `unreachable` when it could not be asked (network,
 * timeout, throttling, 5xx). A route is `ok` when one of its sources is.
 */
export async function checkUpstream(
  config: AppleStoreConfig,
  http: UpstreamHttpClient,
  items: WellKnownItems = DEFAULT_ITEMS,
): Promise<RouteCheck[]> {
  const checks: RouteCheck[] = [];
  for (const route of ROUTE_TABLES.apple.routes) {
    const chain = SOURCED_BY[route.id];
    const sources: SourceCheck[] = [];
    for (const source of APPLE_SOURCES[chain]) {
      const notes: string[] = [];
      const adapter = new AppleStoreAdapter({ ...config, sources: { ...config.sources, [chain]: [source] } }, http, {
        onDrift: (note) => notes.push(note),
      });
      sources.push({ source, ...(await checkOne(route, adapter, notes, items)) });
    }
    checks.push({ store: 'apple', route: route.path, ...summary(sources, config.sources[chain]), sources });
  }
  return checks;
}

/** The same check for Google Play's routes, read with its adapter (one source each). */
export async function checkGooglePlay(
  config: GooglePlayConfig,
  http: UpstreamHttpClient,
  items: WellKnownItems = DEFAULT_ITEMS,
): Promise<RouteCheck[]> {
  const adapter = new GooglePlayStoreAdapter(config, http);
  const checks: RouteCheck[] = [];
  for (const route of ROUTE_TABLES['google-play'].routes) {
    const result = await checkOne(route, adapter, [], items);
    checks.push({
      store: 'google-play',
      route: route.path,
      ...result,
      sources: [{ source: 'google-play', ...result }],
    });
  }
  return checks;
}

/** One route through one adapter: ok with its record count, or drift / unreachable and why. */
async function checkOne(
  route: PricedRoute,
  adapter: StoreAdapter,
  /** Filled by the adapter with what it read past. */
  notes: string[],
  items: WellKnownItems,
): Promise<{ status: RouteCheckStatus; detail: string }> {
  try {
    const data = await fetchFromStore(adapter, route.toCatalogQuery(paramsFor(route, items)), UNTRACKED);
    const drift = [...new Set(notes)];
    if (data.resultCount === 0) drift.unshift(`no records for the well-known item (${describe(route, items)})`);
    return drift.length === 0
      ? { status: 'ok', detail: `${data.resultCount} record${data.resultCount === 1 ? '' : 's'}` }
      : { status: 'drift', detail: drift.join('; ') };
  } catch (error) {
    return classify(error);
  }
}

/** The route's state: the first configured source that works, or why none does. */
function summary(sources: SourceCheck[], order: readonly string[]): { status: RouteCheckStatus; detail: string } {
  const relied = order.map((name) => sources.find((s) => s.source === name && s.status === 'ok')).find(Boolean);
  if (relied) return { status: 'ok', detail: `${relied.source}: ${relied.detail}` };
  const failing = sources.filter((s) => order.includes(s.source));
  return {
    status: failing.some((s) => s.status === 'drift') ? 'drift' : 'unreachable',
    detail: `no working source (${failing.map((s) => `${s.source}: ${s.detail}`).join('; ')})`,
  };
}

function describe(route: PricedRoute, items: WellKnownItems): string {
  const routeId = route.id;
  const where = `in ${items.country}`;
  if (route.store === 'google-play')
    return routeId === 'apps.search'
      ? `Google Play term "${items.playTerm}" ${where}`
      : routeId.startsWith('apps.')
        ? `Google Play app ${items.playAppId} ${where}`
        : `Google Play developer ${items.playDeveloperId} ${where}`;
  if (routeId === 'apps.search') return `term "${items.appTerm}" ${where}`;
  if (routeId === 'bundles.search') return `term "${items.bundleTerm}" ${where}`;
  if (routeId === 'suggestions.search') return `prefix "${items.prefix}" ${where}`;
  if (routeId === 'charts.get') return `the top-free chart ${where}`;
  if (routeId.startsWith('apps.')) return `app ${items.appId} ${where}`;
  if (routeId.startsWith('bundles.')) return `bundle ${items.bundleId} ${where}`;
  return `developer ${items.developerId}`;
}
