import { ErrorCode, type StoreId } from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import { type PricedRoute, ROUTE_TABLES, type RouteParams } from '@appcat/routes';
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
  appTerm: string;
  bundleTerm: string;
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
  appTerm: 'facebook',
  bundleTerm: 'meta',
  country: 'us',
});

export type RouteCheckStatus = 'ok' | 'drift' | 'unreachable';

export interface RouteCheck {
  store: StoreId;
  /** The route table's path template, `/api/apps/{appId}`. */
  route: string;
  status: RouteCheckStatus;
  detail: string;
}

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
    appId: items.appId,
    bundleId: items.bundleId,
    developerId: route.store === 'google-play' ? items.playDeveloperId : items.developerId,
    term: routeId === 'bundles.search' ? items.bundleTerm : items.appTerm,
    country: items.country,
    page: '1',
  };
}

/**
 * Asks the configured upstream for one well-known item per priced route and reads each answer with
 * the catalog's own adapter, uncached and one route at a time (so what an answer held is told apart
 * per route). A route is `ok` when it answered records and nothing had to be read past; `drift` when
 * the answer could not be read, was empty for an item that exists, or held something we skip;
 * `unreachable` when the upstream could not be asked (network, timeout, throttling, 5xx).
 */
export async function checkUpstream(
  config: AppleStoreConfig,
  http: UpstreamHttpClient,
  items: WellKnownItems = DEFAULT_ITEMS,
): Promise<RouteCheck[]> {
  const notes: string[] = [];
  const adapter = new AppleStoreAdapter(config, http, { onDrift: (note) => notes.push(note) });
  return checkRoutes('apple', adapter, notes, items);
}

/** The same check for Google Play's routes, read with its adapter. */
export async function checkGooglePlay(
  config: GooglePlayConfig,
  http: UpstreamHttpClient,
  items: WellKnownItems = DEFAULT_ITEMS,
): Promise<RouteCheck[]> {
  return checkRoutes('google-play', new GooglePlayStoreAdapter(config, http), [], items);
}

async function checkRoutes(
  store: StoreId,
  adapter: StoreAdapter,
  /** Filled by the adapter with what it read past, per route. */
  notes: string[],
  items: WellKnownItems,
): Promise<RouteCheck[]> {
  const checks: RouteCheck[] = [];
  for (const route of ROUTE_TABLES[store].routes) {
    notes.length = 0;
    const query = route.toCatalogQuery(paramsFor(route, items));
    try {
      const data = await fetchFromStore(adapter, query, UNTRACKED);
      const drift = [...new Set(notes)];
      if (data.resultCount === 0) drift.unshift(`no records for the well-known item (${describe(route, items)})`);
      checks.push(
        drift.length === 0
          ? {
              store,
              route: route.path,
              status: 'ok',
              detail: `${data.resultCount} record${data.resultCount === 1 ? '' : 's'}`,
            }
          : { store, route: route.path, status: 'drift', detail: drift.join('; ') },
      );
    } catch (error) {
      checks.push({ store, route: route.path, ...classify(error) });
    }
  }
  return checks;
}

function describe(route: PricedRoute, items: WellKnownItems): string {
  const routeId = route.id;
  const where = `in ${items.country}`;
  if (route.store === 'google-play') return `Google Play developer ${items.playDeveloperId} ${where}`;
  if (routeId === 'apps.search') return `term "${items.appTerm}" ${where}`;
  if (routeId === 'bundles.search') return `term "${items.bundleTerm}" ${where}`;
  if (routeId.startsWith('apps.')) return `app ${items.appId} ${where}`;
  if (routeId.startsWith('bundles.')) return `bundle ${items.bundleId} ${where}`;
  return `developer ${items.developerId}`;
}
