/**
 * How many upstream calls the catalog makes for realistic traffic: its own Redis, NATS, store emulator
 * and catalog replicas (processes), sent catalog.fetch rounds from a Zipf mix (workload.ts). Prints a
 * table and asserts nothing; mix and settings: docs/catalog-resilience.md, "Benchmark".
 */
import { type CatalogQuery, type CatalogReply, Subject } from '@appcat/contracts';
import { NatsRpcClient, RpcCallError } from '@appcat/microservice';
import { CATALOG_RATE_LIMITS_LIFTED, EmulatorControlClient, type EndpointStatsSnapshot } from '@appcat/store-emulator';
import { startNatsServer, startRedisServer } from '@appcat/testing';
import { randomUUID } from 'node:crypto';
import { NodeProcess, repoPath } from '../processes.js';
import { startEmulator } from '../stack.js';
import { percentile } from '../stats.js';
import { markdownTable } from '../table.js';
import { ROUTE_MIX, Workload } from './workload.js';

function setting(name: string, fallback: number, min = Number.MIN_VALUE): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < min)
    throw new Error(`${name} must be a number of at least ${min}, got ${raw}`);
  return value;
}

const settings = {
  requests: setting('BENCH_REQUESTS', 1000),
  rounds: setting('BENCH_ROUNDS', 3),
  concurrency: setting('BENCH_CONCURRENCY', 100),
  apps: setting('BENCH_APPS', 10_000),
  storefronts: setting('BENCH_STOREFRONTS', 20),
  zipfS: setting('BENCH_ZIPF_S', 1),
  seed: setting('BENCH_SEED', 1),
  replicas: setting('BENCH_REPLICAS', 2),
  upstreamLatencyMs: setting('BENCH_UPSTREAM_LATENCY_MS', 100, 0),
};

/** Catalog settings the bench chooses unless the environment does. */
const CATALOG_DEFAULTS: Record<string, string> = {
  ...CATALOG_RATE_LIMITS_LIFTED,
  // Several replicas on one machine: no ops ports, or they would all want 9102.
  OPS_PORT: '0',
};

interface RoundResult {
  requests: number;
  upstreamCalls: number;
  byEndpoint: Record<string, number>;
  fromCache: number;
  stale: number;
  errors: Map<string, number>;
  latenciesMs: number[];
}

const write = (line = '') => process.stdout.write(`${line}\n`);

function diff(after: EndpointStatsSnapshot, before: EndpointStatsSnapshot): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after.byEndpoint).map(([k, v]) => [k, v - before.byEndpoint[k as keyof typeof before.byEndpoint]]),
  );
}

async function runRound(
  client: NatsRpcClient,
  control: EmulatorControlClient,
  queries: CatalogQuery[],
  concurrency: number,
): Promise<RoundResult> {
  const before = await control.stats();
  const result: RoundResult = { ...emptyRound(), requests: queries.length };
  let next = 0;
  const worker = async () => {
    while (next < queries.length) {
      const query = queries[next++];
      const began = performance.now();
      try {
        const reply = await client.request<CatalogReply>(
          Subject.CatalogFetch,
          { query, requestId: randomUUID() },
          { service: 'catalog' },
        );
        if (reply.source === 'cache') result.fromCache++;
        if (reply.source === 'stale') result.stale++;
      } catch (error) {
        const code = error instanceof RpcCallError ? error.code : 'ERROR';
        result.errors.set(code, (result.errors.get(code) ?? 0) + 1);
      }
      result.latenciesMs.push(performance.now() - began);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const after = await control.stats();
  result.upstreamCalls = after.requests - before.requests;
  result.byEndpoint = diff(after, before);
  return result;
}

function printTable(rows: [string, RoundResult][]): void {
  const header = [
    'round',
    'requests',
    'upstream calls',
    'calls / 1,000 req',
    'cache hit ratio',
    'stale',
    'errors',
    'p50 ms',
    'p99 ms',
  ];
  const lines = rows.map(([name, r]) => {
    const errors = [...r.errors.values()].reduce((a, b) => a + b, 0);
    return [
      name,
      String(r.requests),
      String(r.upstreamCalls),
      ((r.upstreamCalls * 1000) / r.requests).toFixed(1),
      `${((100 * (r.fromCache + r.stale)) / r.requests).toFixed(1)} %`,
      String(r.stale),
      String(errors),
      percentile(r.latenciesMs, 50).toFixed(1),
      percentile(r.latenciesMs, 99).toFixed(1),
    ];
  });
  write(markdownTable(header, lines));
}

function emptyRound(): RoundResult {
  return {
    requests: 0,
    upstreamCalls: 0,
    byEndpoint: {},
    fromCache: 0,
    stale: 0,
    errors: new Map(),
    latenciesMs: [],
  };
}

function combine(results: RoundResult[]): RoundResult {
  const total = emptyRound();
  for (const r of results) {
    total.requests += r.requests;
    total.upstreamCalls += r.upstreamCalls;
    total.fromCache += r.fromCache;
    total.stale += r.stale;
    total.latenciesMs.push(...r.latenciesMs);
    for (const [k, v] of Object.entries(r.byEndpoint)) total.byEndpoint[k] = (total.byEndpoint[k] ?? 0) + v;
    for (const [k, v] of r.errors) total.errors.set(k, (total.errors.get(k) ?? 0) + v);
  }
  return total;
}

async function main(): Promise<void> {
  const [redis, nats] = await Promise.all([startRedisServer(), startNatsServer()]);
  const children: NodeProcess[] = [];
  try {
    const emulator = await startEmulator();
    children.push(emulator.process);
    const emulatorUrl = emulator.url;
    const catalogEnv: Record<string, string> = {
      ...CATALOG_DEFAULTS,
      ...Object.fromEntries(
        Object.keys(CATALOG_DEFAULTS).flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])),
      ),
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      ITUNES_BASE_URL: emulatorUrl,
      APPLE_WEB_BASE_URL: emulatorUrl,
      APPLE_AMP_API_BASE_URL: emulatorUrl,
    };
    for (let i = 0; i < settings.replicas; i++) {
      const replica = NodeProcess.start(`catalog replica ${i + 1}`, repoPath('apps/catalog/dist/main.js'), catalogEnv);
      children.push(replica);
      await replica.waitForLine(/answering on NATS/);
    }
    const control = new EmulatorControlClient(emulatorUrl);
    const listing = await control.catalogue();
    if (settings.upstreamLatencyMs > 0) await control.addFaults({ delayMs: settings.upstreamLatencyMs });
    const client = await NatsRpcClient.connect(
      { servers: [nats.url], requestTimeoutMs: 30_000, shutdownGraceMs: 0 },
      'bench',
    );
    const workload = new Workload(listing, settings);

    write(
      `catalog upstream calls: ${settings.replicas} replicas, ${settings.rounds} × ${settings.requests} requests, ${settings.concurrency} in flight`,
    );
    write(
      `workload: Zipf s=${settings.zipfS} over ${settings.apps} apps (${Math.min(settings.apps, listing.apps.length)} exist in the emulator) and ${settings.storefronts} storefronts (${Math.min(settings.storefronts, listing.storefronts.length)} stocked); seed ${settings.seed}`,
    );
    write(`routes: ${ROUTE_MIX.map(([route, share]) => `${route} ${Math.round(share * 1000) / 10}%`).join(', ')}`);
    write(
      `upstream latency: ${settings.upstreamLatencyMs} ms; rate limits per minute (0 = off): ${Object.keys(
        CATALOG_RATE_LIMITS_LIFTED,
      )
        .map((name) => `${name.replace('_RATE_PER_MIN', '')} ${catalogEnv[name]}`)
        .join(', ')}`,
    );
    write();

    const results: RoundResult[] = [];
    for (let round = 0; round < settings.rounds; round++) {
      const queries = Array.from({ length: settings.requests }, () => workload.next());
      results.push(await runRound(client, control, queries, settings.concurrency));
    }
    const total = combine(results);
    printTable([
      ...results.map((r, i) => [`${i + 1}${i === 0 ? ' (cold)' : ''}`, r] as [string, RoundResult]),
      ['all', total],
    ]);
    write();
    write(
      `upstream calls by endpoint: ${Object.entries(total.byEndpoint)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')}`,
    );
    if (total.errors.size > 0) write(`errors: ${[...total.errors].map(([code, n]) => `${code} ${n}`).join(', ')}`);
    await client.close();
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    await Promise.all([redis.stop(), nats.stop()]);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
