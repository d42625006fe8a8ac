import type { CatalogQuery } from '@appcat/contracts';
import { EmulatorControlClient } from '@appcat/store-emulator';
import { startNatsServer, startRedisServer } from '@appcat/testing';
import { Redis } from 'ioredis';
import { runNatsLoad, type NatsLoadResult } from '../load/nats-load.js';
import type { NodeProcess } from '../processes.js';
import type { Report } from '../report.js';
import { RssSampler } from '../rss.js';
import type { BenchSettings } from '../settings.js';
import { NO_RATE_LIMITS, startEmulator, startService } from '../stack.js';
import { interleave, ratio, summarise } from '../stats.js';
import { count, fixed, markdownTable, times } from '../table.js';

const log = (line: string) => process.stdout.write(`${line}\n`);

/** Language tags that make the same app a different cache entry (and a different upstream lookup). */
const LANGS = ['en-us', 'en-gb', 'fr-fr', 'de-de', 'ja-jp', 'es-es', 'it-it', 'pt-br', 'nl-nl', 'ko-kr', 'zh-cn', 'sv-se'];

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

/**
 * Section 3: cache-miss traffic straight at catalog.fetch over NATS, against the store emulator
 * answering `upstreamLatencyMs` late, with one and then two catalog replicas (its own NATS, Redis and
 * emulator; the cache emptied before every run; rate limits lifted).
 */
export async function scaleSection(settings: BenchSettings, report: Report): Promise<void> {
  const [nats, redis, emulator] = await Promise.all([startNatsServer(), startRedisServer(), startEmulator()]);
  const replicas: NodeProcess[] = [];
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
      ...NO_RATE_LIMITS,
    };
    const perSecondBound = settings.scaleConcurrency * (1000 / Math.max(1, settings.upstreamLatencyMs));
    const queries = missQueries(listing.apps, Math.ceil(perSecondBound * Math.max(settings.seconds, settings.warmupSeconds) * 1.2));
    const flusher = new Redis(redis.url);

    const setReplicas = async (n: number) => {
      while (replicas.length < n) replicas.push((await startService(`catalog ${replicas.length + 1}`, 'catalog', env)).process);
      while (replicas.length > n) await replicas.pop()!.stop();
    };
    const results = new Map<number, NatsLoadResult[]>([
      [1, []],
      [2, []],
    ]);
    for (const { round, target } of interleave([1, 2], settings.rounds)) {
      await setReplicas(target);
      if (settings.warmupSeconds > 0) {
        await flusher.flushdb();
        await runNatsLoad({ natsUrl: nats.url, concurrency: settings.scaleConcurrency, seconds: settings.warmupSeconds, queries });
      }
      await flusher.flushdb();
      const sampler = new RssSampler(new Map(replicas.map((r) => [`${r.name} (scale-out)`, r.pid]))).start();
      const result = await runNatsLoad({ natsUrl: nats.url, concurrency: settings.scaleConcurrency, seconds: settings.seconds, queries });
      for (const [name, bytes] of sampler.stop()) report.peak(name, bytes);
      results.get(target)!.push(result);
      log(`  scale round ${round + 1}: ${target} replica(s): ${count(result.requestsPerSecond)} req/s, p50 ${fixed(result.p50Ms)} ms, p99 ${fixed(result.p99Ms)} ms, sources ${JSON.stringify(result.sources)}, errors ${JSON.stringify(result.errorCodes)}`);
      if (result.requests >= queries.length) log(`  (ran out of distinct queries: ${queries.length}; raise them or shorten BENCH_SECONDS)`);
    }
    await flusher.quit();

    const [one, two] = [1, 2].map((n) => summarise(results.get(n)!));
    const hits = (n: number) => results.get(n)!.reduce((sum, r) => sum + (r.sources.cache ?? 0) + (r.sources.stale ?? 0), 0);
    const scaling = ratio(two.requestsPerSecond, one.requestsPerSecond);
    report.add(
      'Catalog scale-out, cache misses',
      [
        `\`catalog.fetch\` app lookups that all miss the cache (distinct app × storefront × language; the Redis cache emptied before each run), ${settings.scaleConcurrency} in flight from a worker thread over NATS, the store emulator answering ${settings.upstreamLatencyMs} ms late, rate limits lifted (\`ITUNES_RATE_PER_MIN=0\` …), request merging and batching on as configured by default. ${settings.rounds} interleaved rounds of ${settings.seconds} s.`,
        '',
        markdownTable(
          ['catalog replicas', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'served from cache'],
          [
            ['1', count(one.requestsPerSecond), fixed(one.p50Ms), fixed(one.p99Ms), String(one.errors), String(hits(1))],
            ['2', count(two.requestsPerSecond), fixed(two.p50Ms), fixed(two.p99Ms), String(two.errors), String(hits(2))],
          ],
        ),
        '',
        `Two replicas ÷ one: **${times(scaling)}**.`,
      ].join('\n'),
    );
    report.check({ name: 'two catalog replicas vs one (cache misses)', target: '≥ 1.8×', measured: times(scaling), met: Number.isFinite(scaling) ? scaling >= 1.8 : undefined });
  } finally {
    await Promise.all(replicas.map((r) => r.stop()));
    await emulator.process.stop();
    await Promise.all([nats.stop(), redis.stop()]);
  }
}
