import { parseArgs } from 'node:util';
import { type CatalogConfig, readCatalogConfig } from '../config.js';
import { FetchUpstreamHttpClient } from '../upstream/upstream-http-client.js';
import { checkUpstream, DEFAULT_ITEMS, type RouteCheck, type WellKnownItems } from './upstream-check.js';

const USAGE = `Usage: npm run upstream:check -- [--json] [--app ID] [--bundle ID] [--developer ID] [--term TEXT] [--bundle-term TEXT] [--country CC]

Asks the upstream store the catalog is configured for (ITUNES_BASE_URL, APPLE_WEB_BASE_URL,
APPLE_AMP_API_BASE_URL, APPLE_TOKEN_PAGE_PATH) for one well-known item per priced route, reads each
answer with the catalog's own code and prints one row per route: ok, drift or unreachable.
Exits 0 only when every route is ok, 1 otherwise, 2 on a usage or configuration error.

  --json           print one JSON object {"routes": [{"route", "status", "detail"}]} on stdout
  --app ID         app (track id or bundle identifier)   default ${DEFAULT_ITEMS.appId}
  --bundle ID      app bundle id                          default ${DEFAULT_ITEMS.bundleId}
  --developer ID   developer (artist) id                  default ${DEFAULT_ITEMS.developerId}
  --term TEXT      app search term                        default ${DEFAULT_ITEMS.appTerm}
  --bundle-term T  bundle search term                     default ${DEFAULT_ITEMS.bundleTerm}
  --country CC     storefront                             default ${DEFAULT_ITEMS.country}
`;

function readItems(values: Record<string, string | boolean | undefined>): WellKnownItems {
  const pick = (name: string, fallback: string) =>
    typeof values[name] === 'string' && values[name] !== '' ? (values[name] as string) : fallback;
  const items = {
    appId: pick('app', DEFAULT_ITEMS.appId),
    bundleId: pick('bundle', DEFAULT_ITEMS.bundleId),
    developerId: pick('developer', DEFAULT_ITEMS.developerId),
    appTerm: pick('term', DEFAULT_ITEMS.appTerm),
    bundleTerm: pick('bundle-term', DEFAULT_ITEMS.bundleTerm),
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
  const width = Math.max(...checks.map((c) => c.route.length));
  const statusWidth = 'unreachable'.length;
  return checks.map((c) => `${c.route.padEnd(width)}  ${c.status.padEnd(statusWidth)}  ${c.detail}`).join('\n');
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
        term: { type: 'string' },
        'bundle-term': { type: 'string' },
        country: { type: 'string' },
      },
    }).values;
    if (values.help) {
      out.stdout(USAGE);
      return 0;
    }
    items = readItems(values);
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
  const checks = await checkUpstream(
    config.apple,
    new FetchUpstreamHttpClient({ timeoutMs: config.upstreamTimeoutMs, userAgent: config.apple.userAgent }),
    items,
  );
  out.stdout(values.json ? `${JSON.stringify({ routes: checks })}\n` : `${table(checks)}\n`);
  return checks.every((c) => c.status === 'ok') ? 0 : 1;
}
