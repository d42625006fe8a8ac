/**
 * What the cache can save at a sustained rate, in virtual time. The upstream-calls bench measures the
 * real system, but only over minutes of wall time, in which no entry ever expires and every request
 * for something not yet seen is a miss. This model replays the same workload (workload.ts) at a
 * given rate for a day of virtual time against the catalog's own cache keys and freshness settings
 * (readCatalogConfig, so defaults cannot drift), and counts the calls of the last hour: the steady
 * state of a platform sending that many calls a minute.
 *
 *   npm run bench:model -w @appcat/catalog            (BENCH_MODEL_RATES=1000,3000,10000 calls/min)
 *
 * Modelled: one entry per resource key as the catalog keys them; an entry is fresh for its kind's TTL;
 * app, bundle and similar-list misses in the same storefront within one upstream round trip
 * (BENCH_UPSTREAM_LATENCY_MS, 100 ms) share one batched call of at most UPSTREAM_BATCH_MAX_IDS ids.
 * Approximations: search results and developer lists also prime app entries in the real catalog (not
 * modelled: more misses here); the bundle routes count only the bundle, not their member apps' lists
 * and feeds (often cached by the app routes already: fewer misses here); every drawn id exists.
 */
import type { CatalogQuery } from '@appcat/contracts';
import { startStoreEmulator, EmulatorControlClient } from '@appcat/store-emulator';
import { readCatalogConfig } from '@appcat/catalog';
import { Workload } from './workload.js';

const SIMULATED_HOURS = 25;

function numbers(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const values = raw.split(',').map(Number);
  if (values.some((v) => !Number.isFinite(v) || v <= 0)) throw new Error(`${name} must be a comma-separated list of positive numbers, got ${raw}`);
  return values;
}

const rates = numbers('BENCH_MODEL_RATES', [1000, 3000, 10_000]);
const [latencyMs] = numbers('BENCH_UPSTREAM_LATENCY_MS', [100]);
const config = readCatalogConfig();
const ttl = config.cache.ttl;
const batchMaxIds = config.cache.batchMaxIds;

/** The resource a query loads first, its freshness and, for id lookups, the batch group it joins. */
function resourceOf(q: CatalogQuery): { key: string; ttlSeconds: number; batchGroup?: string } {
  switch (q.route) {
    case 'apps.get':
      return { key: `app:${q.country}:${q.appId}`, ttlSeconds: ttl.detailsSeconds, batchGroup: `lookup:${q.country}:${/^\d+$/.test(q.appId) ? 'id' : 'bundleId'}` };
    case 'apps.similar':
      return { key: `similar:${q.country}:${q.appId}`, ttlSeconds: ttl.listsSeconds, batchGroup: `amp-apps:${q.country}` };
    case 'bundles.get':
    case 'bundles.similar':
    case 'bundles.reviews':
      // The bundle itself first; the member apps' lists and feeds are the apps' own entries.
      return { key: `bundle:${q.country}:${q.bundleId}`, ttlSeconds: ttl.detailsSeconds, batchGroup: `amp-bundles:${q.country}` };
    case 'apps.search':
      return { key: `search:${q.country}:${q.term}`, ttlSeconds: ttl.searchSeconds };
    case 'bundles.search':
      return { key: `bundle-search:${q.country}:${q.page}:${q.term}`, ttlSeconds: ttl.searchSeconds };
    case 'apps.reviews':
      return {
        key: `reviews:${q.country}:${q.appId}:${q.sort}:${q.page}`,
        ttlSeconds: q.page === 1 && q.sort === 'recent' ? ttl.recentReviewsSeconds : ttl.reviewsSeconds,
      };
    case 'developers.get':
      return { key: `developer:${q.developerId}`, ttlSeconds: ttl.listsSeconds };
  }
}

interface Batch {
  closesAt: number;
  ids: number;
}

function simulate(workload: Workload, ratePerMin: number): { total: number; byRoute: Map<string, number> } {
  const expiry = new Map<string, number>();
  const openBatches = new Map<string, Batch>();
  const byRoute = new Map<string, number>();
  const requests = ratePerMin * 60 * SIMULATED_HOURS;
  const measureFrom = requests - ratePerMin * 60;
  let total = 0;
  for (let i = 0; i < requests; i++) {
    const now = (i * 60) / ratePerMin;
    const query = workload.next();
    const resource = resourceOf(query);
    if ((expiry.get(resource.key) ?? -1) > now) continue;
    expiry.set(resource.key, now + resource.ttlSeconds);
    if (resource.batchGroup) {
      const open = openBatches.get(resource.batchGroup);
      if (open && open.closesAt > now && open.ids < batchMaxIds) {
        open.ids++;
        continue;
      }
      openBatches.set(resource.batchGroup, { closesAt: now + latencyMs / 1000, ids: 1 });
    }
    if (i >= measureFrom) {
      total++;
      byRoute.set(query.route, (byRoute.get(query.route) ?? 0) + 1);
    }
  }
  return { total, byRoute };
}

async function main(): Promise<void> {
  const emulator = await startStoreEmulator({ port: 0 });
  const listing = await new EmulatorControlClient(emulator.url).catalogue();
  await emulator.close();
  const write = (line = '') => process.stdout.write(`${line}\n`);
  write(`steady-state model: the last of ${SIMULATED_HOURS} virtual hours, upstream calls per 1,000 calls (first resource of each call)`);
  write(`freshness (s): details ${ttl.detailsSeconds}, lists ${ttl.listsSeconds}, search ${ttl.searchSeconds}, recent reviews ${ttl.recentReviewsSeconds}, reviews ${ttl.reviewsSeconds}; batches of ≤ ${batchMaxIds} ids per ${latencyMs} ms`);
  write();
  const routes = ['apps.get', 'apps.search', 'apps.reviews', 'apps.similar', 'developers.get', 'bundles.get', 'bundles.search', 'bundles.reviews', 'bundles.similar'];
  write(`| calls/min | total | ${routes.join(' | ')} |`);
  write(`|--:|--:|${routes.map(() => '--:').join('|')}|`);
  for (const rate of rates) {
    const workload = new Workload(listing, { apps: 10_000, storefronts: 20, zipfS: Number(process.env.BENCH_ZIPF_S ?? 1), seed: 1 });
    const { total, byRoute } = simulate(workload, rate);
    const perThousand = (n: number) => ((n * 1000) / (rate * 60)).toFixed(1);
    write(`| ${rate} | ${perThousand(total)} | ${routes.map((r) => perThousand(byRoute.get(r) ?? 0)).join(' | ')} |`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
