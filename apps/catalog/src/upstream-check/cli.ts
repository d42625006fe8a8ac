import { parseArgs } from 'node:util';
import { type CatalogConfig, readCatalogConfig } from '../config.js';
import { FetchUpstreamHttpClient } from '../upstream/upstream-http-client.js';
import { STORES, type StoreId } from '@appcat/contracts';
import {
  checkGooglePlay,
  checkUpstream,
  DEFAULT_ITEMS,
  type RouteCheck,
  type WellKnownItems,
} from './upstream-check.js';

const USAGE = `Usage: npm run upstream:check -- [--json] [--store apple|google-play] [--app ID] [--bundle ID] [--developer ID] [--play-developer ID] [--play-app ID] [--play-term TEXT] [--term TEXT] [--bundle-term TEXT] [--prefix TEXT] [--country CC]

Asks both upstream stores (the App Store at ITUNES_BASE_URL, APPLE_WEB_BASE_URL,
APPLE_AMP_API_BASE_URL, APPLE_TOKEN_PAGE_PATH, APPLE_MARKETING_RSS_BASE_URL, APPLE_SEARCH_HINTS_BASE_URL;
Google Play at PLAY_BASE_URL) for one well-known item
per priced route, through every source of an App Store route alone (APPLE_SOURCES_<ROUTE> sets the
order), reads each answer with the catalog's own code and prints one row per store and route (ok, with
the source it relies on now; drift; unreachable), then one indented row per source. Exits 0 only when
every route has a working source, 1 otherwise, 2 on a usage or configuration error.

  --json           print one JSON object {"routes": [{"store", "route", "status", "detail",
                   "sources": [{"source", "status", "detail"}]}]} on stdout
  --store S        check one store only (apple or google-play)   default both
  --app ID         app (track id or bundle identifier)   default ${DEFAULT_ITEMS.appId}
  --bundle ID      app bundle id                          default ${DEFAULT_ITEMS.bundleId}
  --developer ID   developer (artist) id                  default ${DEFAULT_ITEMS.developerId}
  --play-developer Google Play developer (id or name)     default ${DEFAULT_ITEMS.playDeveloperId}
  --play-app ID    Google Play app (package name)         default ${DEFAULT_ITEMS.playAppId}
  --play-term T    Google Play search term                default ${DEFAULT_ITEMS.playTerm}
  --term TEXT      app search term                        default ${DEFAULT_ITEMS.appTerm}
  --bundle-term T  bundle search term                     default ${DEFAULT_ITEMS.bundleTerm}
  --prefix TEXT    what a user typed, for suggestions     default ${DEFAULT_ITEMS.prefix}
  --country CC     storefront                             default ${DEFAULT_ITEMS.country}
`;

function readItems(values: Record<string, string | boolean | undefined>): WellKnownItems {
  const pick = (name: string, fallback: string) =>
    typeof values[name] === 'string' && values[name] !== '' ? (values[name] as string) : fallback;
  const items = {
    appId: pick('app', DEFAULT_ITEMS.appId),
    bundleId: pick('bundle', DEFAULT_ITEMS.bundleId),
    developerId: pick('developer', DEFAULT_ITEMS.developerId),
    playDeveloperId: pick('play-developer', DEFAULT_ITEMS.playDeveloperId),
    playAppId: pick('play-app', DEFAULT_ITEMS.playAppId),
    playTerm: pick('play-term', DEFAULT_ITEMS.playTerm),
    appTerm: pick('term', DEFAULT_ITEMS.appTerm),
    bundleTerm: pick('bundle-term', DEFAULT_ITEMS.bundleTerm),
    prefix: pick('prefix', DEFAULT_ITEMS.prefix),
    country: pick('country', DEFAULT_ITEMS.country).toLowerCase(),
  };
  if (!/^\d{1,19}$/.test(items.bundleId))
    throw new Error(`--bundle must be a numeric id, got ${JSON.stringify(items.bundleId)}`);
  if (!/^\d{1,19}$/.test(items.developerId))
    throw new Error(`--developer must be a numeric id, got ${JSON.stringify(items.developerId)}`);
  if (!/^[a-z]{2}$/.test(items.country))
    throw new Error(`--country must be a two-letter storefront code, got ${JSON.stringify(items.country)}`);
  return items;
}

function table(checks: RouteCheck[]): string {
  const storeWidth = Math.max(...checks.map((c) => c.store.length));
  const width = Math.max(...checks.map((c) => c.route.length));
  const statusWidth = 'unreachable'.length;
  const row = (store: string, route: string, status: string, detail: string) =>
    `${store.padEnd(storeWidth)}  ${route.padEnd(width)}  ${status.padEnd(statusWidth)}  ${detail}`;
  return checks
    .flatMap((c) => [
      row(c.store, c.route, c.status, c.detail),
      ...c.sources.map((s) => row('', `  ${s.source}`, s.status, s.detail)),
    ])
    .join('\n');
}

export interface CliOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** The upstream check as a command: its exit code, 0 only when every route is ok. */
export async function runUpstreamCheckCli(
  args: string[],
  env: Record<string, string | undefined>,
  out: CliOutput,
): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  let items: WellKnownItems;
  try {
    values = parseArgs({
      args,
      options: {
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        app: { type: 'string' },
        bundle: { type: 'string' },
        developer: { type: 'string' },
        'play-developer': { type: 'string' },
        'play-app': { type: 'string' },
        'play-term': { type: 'string' },
        store: { type: 'string' },
        term: { type: 'string' },
        'bundle-term': { type: 'string' },
        prefix: { type: 'string' },
        country: { type: 'string' },
      },
    }).values;
    if (values.help) {
      out.stdout(USAGE);
      return 0;
    }
    items = readItems(values);
    if (values.store !== undefined && !(STORES as readonly unknown[]).includes(values.store))
      throw new Error(`--store must be one of ${STORES.join(', ')}, got ${JSON.stringify(values.store)}`);
  } catch (error) {
    out.stderr(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  let config: CatalogConfig;
  try {
    config = readCatalogConfig(env);
  } catch (error) {
    out.stderr(`${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const http = new FetchUpstreamHttpClient({ timeoutMs: config.upstreamTimeoutMs, userAgent: config.apple.userAgent });
  const stores = values.store === undefined ? STORES : [values.store as StoreId];
  const checks: RouteCheck[] = [];
  if (stores.includes('apple')) checks.push(...(await checkUpstream(config.apple, http, items)));
  if (stores.includes('google-play')) checks.push(...(await checkGooglePlay(config.googlePlay, http, items)));
  out.stdout(values.json ? `${JSON.stringify({ routes: checks })}\n` : `${table(checks)}\n`);
  return checks.every((c) => c.status === 'ok') ? 0 : 1;
}
