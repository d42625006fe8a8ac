import { ErrorCode } from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import { PRICED_ROUTES, type RouteParams } from '@appcat/routes';
import { AppleStoreAdapter } from '../apple/apple-store-adapter.js';
import type { AppleStoreConfig } from '../config.js';
import { fetchFromStore } from '../store/store-adapter.js';
import { UNTRACKED } from '../cache/provenance.js';
import type { UpstreamHttpClient } from '../upstream/upstream-http-client.js';

/** One well-known item per operation: what each priced route is asked for. */
export interface WellKnownItems {
  appId: string;
  bundleId: string;
  developerId: string;
  appTerm: string;
  bundleTerm: string;
  country: string;
}

/** Facebook, Meta Essentials and Meta Platforms: sold in the US for years, and in the store emulator whatever its seed. */
export const DEFAULT_ITEMS: Readonly<WellKnownItems> = Object.freeze({
  appId: '284882215',
  bundleId: '1482985563',
  developerId: '284882218',
  appTerm: 'facebook',
  bundleTerm: 'meta',
  country: 'us',
});

export type RouteCheckStatus = 'ok' | 'drift' | 'unreachable';

export interface RouteCheck {
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

function paramsFor(routeId: string, items: WellKnownItems): RouteParams {
  return {
    appId: items.appId,
    bundleId: items.bundleId,
    developerId: items.developerId,
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
  let notes: string[] = [];
  const adapter = new AppleStoreAdapter(config, http, { onDrift: (note) => notes.push(note) });
  const checks: RouteCheck[] = [];
  for (const route of PRICED_ROUTES) {
    notes = [];
    const query = route.toCatalogQuery(paramsFor(route.id, items));
    try {
      const data = await fetchFromStore(adapter, query, UNTRACKED);
      const drift = [...new Set(notes)];
      if (data.resultCount === 0) drift.unshift(`no records for the well-known item (${describe(route.id, items)})`);
      checks.push(
        drift.length === 0
          ? {
              route: route.path,
              status: 'ok',
              detail: `${data.resultCount} record${data.resultCount === 1 ? '' : 's'}`,
            }
          : { route: route.path, status: 'drift', detail: drift.join('; ') },
      );
    } catch (error) {
      checks.push({ route: route.path, ...classify(error) });
    }
  }
  return checks;
}

function describe(routeId: string, items: WellKnownItems): string {
  const where = `in ${items.country}`;
  if (routeId === 'apps.search') return `term "${items.appTerm}" ${where}`;
  if (routeId === 'bundles.search') return `term "${items.bundleTerm}" ${where}`;
  if (routeId.startsWith('apps.')) return `app ${items.appId} ${where}`;
  if (routeId.startsWith('bundles.')) return `bundle ${items.bundleId} ${where}`;
  return `developer ${items.developerId}`;
}
