import { readCatalogConfig } from '@appcat/catalog';
import type { CatalogQuery } from '@appcat/contracts';
import { CATALOG_RATE_LIMITS_LIFTED, EmulatorControlClient } from '@appcat/store-emulator';
import { startNatsServer, startRedisServer } from '@appcat/testing';
import { Redis } from 'ioredis';
import { runNatsLoad, type NatsLoadResult } from '../load/nats-load.js';
import type { NodeProcess } from '../processes.js';
import type { Report } from '../report.js';
import { residentBytes, RssSampler } from '../rss.js';
import type { BenchSettings } from '../settings.js';
import { startEmulator, startService } from '../stack.js';
import { interleave, ratio, summarise } from '../stats.js';
import { count, fixed, markdownTable, megabytes, times } from '../table.js';

const log = (line: string) => process.stdout.write(`${line}\n`);

/** Language tags that make the same app a different cache entry (and a different upstream lookup). */
const LANGS = [
  'en-us',
  'en-gb',
  'fr-fr',
  'de-de',
  'ja-jp',
  'es-es',
  'it-it',
  'pt-br',
  'nl-nl',
  'ko-kr',
  'zh-cn',
  'sv-se',
];

/** Distinct app lookups, none of which repeats: every one is a cache miss on an empty cache. */
export function missQueries(apps: { trackId: number; storefronts: string[] }[], wanted: number): CatalogQuery[] {
  const queries: CatalogQuery[] = [];
  for (const lang of LANGS) {
    for (const app of apps) {
      for (const country of app.storefronts) {
        queries.push({ route: 'apps.get', appId: String(app.trackId), country, lang });
        if (queries.length >= wanted) return queries;
      }
    }
  }
  return queries;
}

/** In the memory table's names of replicas run with the budget lifted (not as deployed: no memory target). */
export const LIFTED_MEMORY_LABEL = 'budget lifted';

/** The catalog as deployed, and the same with its per-replica fetch budget lifted so one replica takes every request. */
const BUDGETS = [
  { name: 'default', env: {} },
  { name: 'lifted', env: { CATALOG_MAX_IN_FLIGHT: '100000' } },
] as const;
type BudgetName = (typeof BUDGETS)[number]['name'];

interface ScaleTarget {
  budget: BudgetName;
  replicas: number;
}

const TARGETS: ScaleTarget[] = BUDGETS.flatMap(({ name }) => [1, 2].map((replicas) => ({ budget: name, replicas })));
const keyOf = (t: ScaleTarget) => `${t.budget} ${t.replicas}`;

/**
 * Section 3: cache-miss traffic straight at catalog.fetch over NATS, against the store emulator
 * answering `upstreamLatencyMs` late, with one and then two catalog replicas (its own NATS, Redis and
 * emulator; the cache emptied before every run; rate limits lifted). The target is measured with the
 * catalog's default configuration, fetch budget included, as a deployment runs it; the same runs with
 * the budget lifted show what one replica does when it takes everything (then the machine is the limit).
 */
export async function scaleSection(settings: BenchSettings, report: Report): Promise<void> {
  const [nats, redis, emulator] = await Promise.all([startNatsServer(), startRedisServer(), startEmulator()]);
  const replicas: NodeProcess[] = [];
  let running: BudgetName | undefined;
  try {
    const control = new EmulatorControlClient(emulator.url);
    const listing = await control.catalogue();
    if (settings.upstreamLatencyMs > 0) await control.addFaults({ delayMs: settings.upstreamLatencyMs });
    const env = {
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      ITUNES_BASE_URL: emulator.url,
      APPLE_WEB_BASE_URL: emulator.url,
      APPLE_AMP_API_BASE_URL: emulator.url,
      ...CATALOG_RATE_LIMITS_LIFTED,
    };
    const envOf = (budget: BudgetName): Record<string, string> => ({
      ...env,
      ...BUDGETS.find((b) => b.name === budget)!.env,
    });
    // What the replicas read (they inherit this process's environment), so the report states the budget they ran with.
    const budgetOf = (budget: BudgetName) => readCatalogConfig({ ...process.env, ...envOf(budget) }).fetchBudget;
    const perSecondBound = settings.scaleConcurrency * (1000 / Math.max(1, settings.upstreamLatencyMs));
    const queries = missQueries(
      listing.apps,
      Math.ceil(perSecondBound * Math.max(settings.seconds, settings.warmupSeconds) * 1.2),
    );
    const flusher = new Redis(redis.url);

    const idleRss = new Map<BudgetName, number>();
    const labelOf = (budget: BudgetName) => (budget === 'default' ? 'default budget' : LIFTED_MEMORY_LABEL);
    const memoryName = (replica: NodeProcess, budget: BudgetName) => `${replica.name} (scale-out, ${labelOf(budget)})`;
    const setReplicas = async ({ budget, replicas: n }: ScaleTarget) => {
      if (running !== budget) while (replicas.length > 0) await replicas.pop()!.stop();
      running = budget;
      while (replicas.length < n) {
        const replica = (await startService(`catalog ${replicas.length + 1}`, 'catalog', envOf(budget))).process;
        const idle = await residentBytes(replica.pid);
        report.idle(memoryName(replica, budget), idle);
        if (idle !== undefined) idleRss.set(budget, Math.max(idleRss.get(budget) ?? 0, idle));
        replicas.push(replica);
      }
      while (replicas.length > n) await replicas.pop()!.stop();
    };
    const results = new Map<string, NatsLoadResult[]>(TARGETS.map((t) => [keyOf(t), []]));
    const peakRss = new Map<string, number>();
    for (const { round, target } of interleave(TARGETS, settings.rounds)) {
      await setReplicas(target);
      if (settings.warmupSeconds > 0) {
        await flusher.flushdb();
        await runNatsLoad({
          natsUrl: nats.url,
          concurrency: settings.scaleConcurrency,
          seconds: settings.warmupSeconds,
          queries,
        });
      }
      await flusher.flushdb();
      const sampler = new RssSampler(new Map(replicas.map((r) => [memoryName(r, target.budget), r.pid]))).start();
      const result = await runNatsLoad({
        natsUrl: nats.url,
        concurrency: settings.scaleConcurrency,
        seconds: settings.seconds,
        queries,
      });
      for (const [name, bytes] of sampler.stop()) {
        report.peak(name, bytes);
        peakRss.set(keyOf(target), Math.max(peakRss.get(keyOf(target)) ?? 0, bytes));
      }
      results.get(keyOf(target))!.push(result);
      log(
        `  scale round ${round + 1}: ${target.replicas} replica(s), ${labelOf(target.budget)} (${budgetOf(target.budget).maxInFlight} a replica): ${count(result.requestsPerSecond)} req/s, p50 ${fixed(result.p50Ms)} ms, p99 ${fixed(result.p99Ms)} ms, sources ${JSON.stringify(result.sources)}, errors ${JSON.stringify(result.errorCodes)}`,
      );
      if (result.requests >= queries.length)
        log(`  (ran out of distinct queries: ${queries.length}; raise them or shorten BENCH_SECONDS)`);
    }
    await flusher.quit();

    const summary = new Map(TARGETS.map((t) => [keyOf(t), summarise(results.get(keyOf(t))!)]));
    const hits = (t: ScaleTarget) =>
      results.get(keyOf(t))!.reduce((sum, r) => sum + (r.sources.cache ?? 0) + (r.sources.stale ?? 0), 0);
    const scalingOf = (budget: BudgetName) =>
      ratio(summary.get(`${budget} 2`)!.requestsPerSecond, summary.get(`${budget} 1`)!.requestsPerSecond);
    const scaling = scalingOf('default');
    const deployed = budgetOf('default');
    const deployedFrom = process.env.CATALOG_MAX_IN_FLIGHT ? 'set in the environment' : 'default';
    const budgetCell = (budget: BudgetName) =>
      budget === 'default'
        ? `${deployedFrom}: ${count(deployed.maxInFlight)} a replica`
        : `lifted: ${count(budgetOf(budget).maxInFlight)}`;
    report.add(
      'Catalog scale-out, cache misses',
      [
        `\`catalog.fetch\` app lookups that all miss the cache (distinct app × storefront × language; the Redis cache emptied before each run), ${settings.scaleConcurrency} in flight from a worker thread over NATS, the store emulator answering ${settings.upstreamLatencyMs} ms late, rate limits lifted (\`ITUNES_RATE_PER_MIN=0\` …), request merging and batching on as configured by default. ${settings.rounds} interleaved rounds of ${settings.seconds} s per row.`,
        '',
        `The catalog runs as deployed: each replica works on at most \`CATALOG_MAX_IN_FLIGHT\` = ${count(deployed.maxInFlight)} requests at once and queues the rest first come, first served (refusing one that waited ${count(deployed.maxQueueWaitMs)} ms), so one replica serves at most ${count(deployed.maxInFlight)} ÷ (time a cache miss takes) and a second replica adds its own ${count(deployed.maxInFlight)}. The "lifted" rows are the same runs with \`CATALOG_MAX_IN_FLIGHT=100000\`: one replica then takes all ${settings.scaleConcurrency} at once, and what limits it is the machine's CPU, which the replicas share with the emulator, NATS, Redis and the load generator.`,
        '',
        markdownTable(
          [
            'fetch budget',
            'catalog replicas',
            'req/s',
            'p50 ms',
            'p99 ms',
            'errors',
            'served from cache',
            'RSS of a replica: started → peak under load',
          ],
          TARGETS.map((t) => {
            const s = summary.get(keyOf(t))!;
            const mb = (bytes: number | undefined) => (bytes === undefined ? '–' : megabytes(bytes));
            return [
              budgetCell(t.budget),
              String(t.replicas),
              count(s.requestsPerSecond),
              fixed(s.p50Ms),
              fixed(s.p99Ms),
              String(s.errors),
              String(hits(t)),
              `${mb(idleRss.get(t.budget))} → ${mb(peakRss.get(keyOf(t)))}`,
            ];
          }),
        ),
        '',
        `Two replicas ÷ one: **${times(scaling)}** as deployed (the target's figure); ${times(scalingOf('lifted'))} with the budget lifted.`,
      ].join('\n'),
    );
    report.check({
      name: 'two catalog replicas vs one (cache misses)',
      target: '≥ 1.8×',
      measured: times(scaling),
      met: Number.isFinite(scaling) ? scaling >= 1.8 : undefined,
    });
  } finally {
    await Promise.all(replicas.map((r) => r.stop()));
    await emulator.process.stop();
    await Promise.all([nats.stop(), redis.stop()]);
  }
}
