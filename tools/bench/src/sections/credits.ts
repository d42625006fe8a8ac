import { EmulatorControlClient } from '@appcat/store-emulator';
import { Redis } from 'ioredis';
import { zipfDraws } from '../catalog/workload.js';
import { floorPayloadKey } from '../floors/floor-env.js';
import { runHttpLoad, type HttpLoadResult } from '../load/http-load.js';
import type { Report } from '../report.js';
import { cpuMs, residentBytes, RssSampler } from '../rss.js';
import type { BenchSettings } from '../settings.js';
import { type Service, type Stack, startFloor, startService } from '../stack.js';
import { interleave, median, ratio, summarise, type TargetSummary } from '../stats.js';
import { count, fixed, markdownTable, megabytes, percent } from '../table.js';

/** Facebook in the emulator's catalogue, as in the e2e suites. */
export const BENCH_APP_ID = '284882215';
export const BENCH_PATH = appPath(BENCH_APP_ID);

function appPath(appId: string): string {
  return `/api/apps/${appId}`;
}

/**
 * The Zipf mix: app lookups in the gateway's default storefront over the emulator's apps there, most
 * rated first, drawn as the catalog bench draws app popularity (its default exponent and seed).
 */
const ZIPF_STOREFRONT = 'us';
const ZIPF_S = 1;
const ZIPF_SEED = 1;
/** Paths in the mix, replayed from the first in every run: more than a 10 s round of ours sends on the bench's machine. */
const ZIPF_DRAWS = 65_536;
/** Calls in flight while every app of the mix is fetched once before the measurement. */
const WARM_CONCURRENCY = 32;
/** Added to the names of processes measured under the Zipf mix in the memory table. */
export const ZIPF_MEMORY_LABEL = 'Zipf mix';
/** The sibling's row: Google LLC's developer page in the emulator (135 apps, a page and two continuations). */
const PLAY_DEVELOPER_PATH = '/api/developers/5700313618786177705';
const PLAY_MEMORY_LABEL = 'Google Play developers';

interface Target {
  name: string;
  url: string;
  /** Processes whose resident size counts for this target. */
  processes: string[];
  /** Paths requested in turn (the Zipf mix); without, BENCH_PATH alone. */
  paths?: string[];
  /** Added to its processes' names in the memory table, for loads other than BENCH_PATH's. */
  memoryLabel?: string;
}

const log = (line: string) => process.stdout.write(`${line}\n`);

async function processCpuMs(pids: number[]): Promise<number> {
  let total = 0;
  for (const pid of pids) total += (await cpuMs(pid)) ?? 0;
  return total;
}

/** One credit-paid call through our gateway: proves the path works and leaves the data in the cache. */
async function warmCall(url: string, key: string, path = BENCH_PATH): Promise<{ data: unknown; cache: string | null }> {
  const response = await fetch(url + path, { headers: { authorization: `Bearer ${key}` } });
  const body = (await response.json()) as { status: number; message: string; data: unknown };
  if (response.status !== 200) throw new Error(`warm-up call to ${path} answered ${response.status} ${body.message}`);
  return { data: body.data, cache: response.headers.get('x-cache') };
}

/** A process's name in the memory table under `target`'s load. */
function memoryName(process: string, target: Target): string {
  return target.memoryLabel ? `${process} (${target.memoryLabel})` : process;
}

/** One warm-up call per path, WARM_CONCURRENCY at a time; the data each answered, by path. */
async function warmEach(url: string, key: string, paths: readonly string[]): Promise<Map<string, unknown>> {
  const data = new Map<string, unknown>();
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const path = paths[next++];
      data.set(path, (await warmCall(url, key, path)).data);
    }
  };
  await Promise.all(Array.from({ length: WARM_CONCURRENCY }, worker));
  return data;
}

/** Table rows of `targets`, each with ours ÷ it, "ours" being the first. */
function rows(targets: readonly Target[], summaries: readonly TargetSummary[], cpu: Map<string, number[]>): string[][] {
  return targets.map((t, i) => {
    const s = summaries[i];
    const cpuUs = median(cpu.get(t.name)!) * 1000;
    return [
      t.name,
      count(s.requestsPerSecond),
      fixed(s.p50Ms),
      fixed(s.p99Ms),
      fixed(cpuUs, 0),
      percent(s.spread),
      String(s.errors),
      i === 0 ? '1.00' : fixed(ratio(summaries[0].requestsPerSecond, s.requestsPerSecond), 2),
    ];
  });
}

/**
 * Section 1: credit-paid calls on a warm cache, our full stack beside two floors: (a) bare Fastify
 * answering the payload from Redis, (b) the same gateway → payments → catalog path over raw NATS.
 * Then ours and floor (b) again on a Zipf mix of apps instead of one, every app of it fetched once
 * before: what a near cache or anything else tuned to one hot key is worth on traffic with a tail.
 */
export async function creditSection(stack: Stack, settings: BenchSettings, report: Report): Promise<void> {
  const key = await stack.createKey('10000');
  const auth = { authorization: `Bearer ${key.key}` };
  await warmCall(stack.gatewayUrl, key.key);
  const warm = await warmCall(stack.gatewayUrl, key.key);
  if (warm.cache !== 'CACHE') throw new Error(`second call was not served from the cache (x-cache ${warm.cache})`);

  const redis = new Redis(stack.redis.url);
  await redis.set(floorPayloadKey(BENCH_APP_ID), JSON.stringify(warm.data));
  await redis.quit();

  const floorEnv = { NATS_URL: stack.nats.url, REDIS_URL: stack.redis.url, LEDGER_STREAM: 'bench:floor:ledger' };
  const floors: [string, Service][] = [
    ['floor payments', await startFloor('floor payments', 'raw-nats-payments', floorEnv, /answering on NATS/)],
    ['floor catalog', await startFloor('floor catalog', 'raw-nats-catalog', floorEnv, /answering on NATS/)],
    ['floor gateway', await startFloor('floor gateway', 'raw-nats-gateway', floorEnv, /listening on/)],
    ['floor fastify', await startFloor('floor fastify', 'fastify-floor', floorEnv, /listening on/)],
  ];
  for (const [name, service] of floors) stack.adopt(service, name);
  for (const name of ['floor gateway', 'floor fastify']) {
    const answer = await warmCall(stack.services.get(name)!.url!, key.key);
    if (JSON.stringify(answer.data) !== JSON.stringify(warm.data))
      throw new Error(`${name} does not answer the same data`);
  }

  for (const name of ['gateway', 'payments', 'catalog'])
    report.idle(name, await residentBytes(stack.services.get(name)!.process.pid));

  const ours: Target = {
    name: 'ours (gateway → payments → catalog, NestJS)',
    url: stack.gatewayUrl,
    processes: ['gateway', 'payments', 'catalog'],
  };
  const rawNats: Target = {
    name: 'floor (b): raw NATS, no NestJS',
    url: stack.services.get('floor gateway')!.url!,
    processes: ['floor gateway', 'floor payments', 'floor catalog'],
  };
  const fastify: Target = {
    name: 'floor (a): bare Fastify + Redis',
    url: stack.services.get('floor fastify')!.url!,
    processes: ['floor fastify'],
  };
  const singleTargets = [ours, rawNats, fastify];
  const results = new Map<string, HttpLoadResult[]>();
  const cpu = new Map<string, number[]>();
  const load = (target: Target, seconds: number) =>
    runHttpLoad({
      url: target.url + BENCH_PATH,
      connections: settings.connections,
      seconds,
      headers: auth,
      paths: target.paths,
    });
  /** Every target's first warm-up, then the interleaved rounds. */
  const measure = async (targets: readonly Target[]) => {
    for (const target of targets) {
      results.set(target.name, []);
      cpu.set(target.name, []);
    }
    // Every target, ours and the floors alike, reaches its steady state before round 1 (see firstWarmupSeconds).
    if (settings.firstWarmupSeconds > 0) for (const target of targets) await load(target, settings.firstWarmupSeconds);
    for (const { round, target } of interleave(targets, settings.rounds)) {
      if (settings.warmupSeconds > 0) await load(target, settings.warmupSeconds);
      const pids = new Map(target.processes.map((name) => [name, stack.services.get(name)!.process.pid]));
      const sampler = new RssSampler(new Map([...pids].map(([name, pid]) => [memoryName(name, target), pid]))).start();
      const cpuBefore = await processCpuMs([...pids.values()]);
      const result = await load(target, settings.seconds);
      const cpuPerRequestMs = ((await processCpuMs([...pids.values()])) - cpuBefore) / Math.max(1, result.requests);
      for (const [name, bytes] of sampler.stop()) report.peak(name, bytes);
      results.get(target.name)!.push(result);
      cpu.get(target.name)!.push(cpuPerRequestMs);
      log(
        `  credits round ${round + 1}: ${target.name}: ${count(result.requestsPerSecond)} req/s, p50 ${fixed(result.p50Ms)} ms, p99 ${fixed(result.p99Ms)} ms, errors ${result.errors}, CPU ${fixed(cpuPerRequestMs * 1000, 0)} µs/request`,
      );
    }
  };
  await measure(singleTargets);

  // The Zipf mix, after the single app's rounds so that they run as before: warm, every app in it
  // fetched once through ours (into the catalog's cache) and its payload put where floor (b) reads it,
  // then fetched once through floor (b), which must answer the same.
  const listing = await new EmulatorControlClient(stack.emulatorUrl).catalogue();
  const appIds = listing.apps
    .filter((app) => app.storefronts.includes(ZIPF_STOREFRONT))
    .map((app) => String(app.trackId));
  const mixIds = zipfDraws(appIds, ZIPF_DRAWS, ZIPF_S, ZIPF_SEED);
  const mix = mixIds.map(appPath);
  const mixApps = [...new Set(mixIds)];
  const topApps = new Set(appIds.slice(0, Math.ceil(appIds.length / 100)));
  const topShare = mixIds.filter((id) => topApps.has(id)).length / mixIds.length;
  log(
    `  Zipf mix: ${count(mix.length)} calls over ${count(mixApps.length)} of ${count(appIds.length)} apps; warming each through ours and floor (b)`,
  );
  const oursData = await warmEach(stack.gatewayUrl, key.key, mixApps.map(appPath));
  const lastWarmed = await warmCall(stack.gatewayUrl, key.key, appPath(mixApps[mixApps.length - 1]));
  if (lastWarmed.cache !== 'CACHE')
    throw new Error(`a warmed app of the Zipf mix was not served from the cache (x-cache ${lastWarmed.cache})`);
  const floorRedis = new Redis(stack.redis.url);
  await floorRedis.mset(new Map(mixApps.map((id) => [floorPayloadKey(id), JSON.stringify(oursData.get(appPath(id)))])));
  await floorRedis.quit();
  const floorData = await warmEach(rawNats.url, key.key, mixApps.map(appPath));
  for (const [path, data] of oursData)
    if (JSON.stringify(floorData.get(path)) !== JSON.stringify(data))
      throw new Error(`floor gateway does not answer ${path} with the same data`);
  const zipfTargets: Target[] = [
    { ...ours, name: 'ours, Zipf mix', paths: mix, memoryLabel: ZIPF_MEMORY_LABEL },
    { ...rawNats, name: 'floor (b), Zipf mix', paths: mix, memoryLabel: ZIPF_MEMORY_LABEL },
  ];
  await measure(zipfTargets);
  const zipfPeakBytes = Math.max(
    ...ours.processes.map((name) => report.memory.get(memoryName(name, zipfTargets[0]))?.peakBytes ?? 0),
  );

  // The sibling's row: Google Play's catalog and a gateway for it beside ours, on the same payments and
  // key, its developers route (135 apps) warm in the cache; measured as ours was, rounds of its own.
  const playEnv = { ...stack.env(), CATALOG_STORE: 'google-play', GATEWAY_STORE: 'google-play' };
  stack.adopt(await startService('play catalog', 'catalog', playEnv, settings.serviceNodeArgs), 'play catalog');
  const playGateway = stack.adopt(
    await startService('play gateway', 'gateway', playEnv, settings.serviceNodeArgs),
    'play gateway',
  );
  await warmCall(playGateway.url!, key.key, PLAY_DEVELOPER_PATH);
  const playWarm = await warmCall(playGateway.url!, key.key, PLAY_DEVELOPER_PATH);
  if (playWarm.cache !== 'CACHE')
    throw new Error(`Google Play's developers route was not served from the cache (x-cache ${playWarm.cache})`);
  const playTarget: Target = {
    name: 'ours, Google Play developers',
    url: playGateway.url!,
    processes: ['play gateway', 'payments', 'play catalog'],
    paths: [PLAY_DEVELOPER_PATH],
    memoryLabel: PLAY_MEMORY_LABEL,
  };
  await measure([playTarget]);

  const summary = (t: Target) => summarise(results.get(t.name)!);
  const single = singleTargets.map(summary);
  const [oursSingle, rawNatsSingle, fastifySingle] = single;
  const zipf = zipfTargets.map(summary);
  const [oursZipf, rawNatsZipf] = zipf;
  const toRawNats = ratio(oursSingle.requestsPerSecond, rawNatsSingle.requestsPerSecond);
  const zipfToRawNats = ratio(oursZipf.requestsPerSecond, rawNatsZipf.requestsPerSecond);
  const playSingle = summary(playTarget);
  const header = ['target', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'spread', 'errors', 'ours ÷ target'];
  report.add(
    `Credit-paid calls, warm cache, ${settings.connections} connections`,
    [
      `\`GET ${BENCH_PATH}\` with \`Authorization: Bearer\`, autocannon in a worker thread, ${settings.rounds} interleaved rounds of ${settings.seconds} s per target. Ours: one replica each of gateway, payments and catalog (built dist processes) on private NATS and Redis and a Postgres database. Floor (b): the same path as three tiny processes on the raw \`@nats-io/transport-node\` client (the same Redis Lua debit through payments' \`CreditStore\`, the payload read from Redis and passed through as bytes). Floor (a): one Fastify process answering the payload from Redis, no payment.`,
      '',
      markdownTable(header, rows(singleTargets, single, cpu)),
      '',
      `Ours ÷ raw-NATS floor: **${percent(toRawNats)}** of its throughput; ours ÷ bare Fastify: **${percent(ratio(oursSingle.requestsPerSecond, fastifySingle.requestsPerSecond))}**. CPU per request is the target's own processes (utime + stime from /proc, 10 ms ticks), not NATS, Redis or the load generator: it says where the time goes even when other work on the machine moves the throughput. (spread: (max − min) ÷ median of req/s over the rounds.)`,
      '',
      `**Zipf mix.** The same credit-paid calls, but each request's app drawn from a Zipf mix (s=${ZIPF_S}, seed ${ZIPF_SEED}, as the catalog's upstream-calls bench draws app popularity) over the emulator's ${count(appIds.length)} apps in \`${ZIPF_STOREFRONT}\`, most rated first: a fixed sequence of ${count(mix.length)} paths, replayed from its start in every run, reaching ${count(mixApps.length)} distinct apps, the top 1 % of apps taking ${percent(topShare)} of the calls. Warm: once the rows above were measured, every app in it was fetched once through ours (into the catalog's cache) and through floor (b) (whose catalog reads each app's payload from Redis, as for the single app); then the two were measured as above, a first warm-up each and ${settings.rounds} interleaved rounds of ${settings.seconds} s. autocannon rewrites each request's path, which costs the load generator a little, alike for both.`,
      '',
      markdownTable(header, rows(zipfTargets, zipf, cpu)),
      '',
      `On the Zipf mix, ours ÷ raw-NATS floor: **${percent(zipfToRawNats)}** of its throughput (${fixed(zipfToRawNats, 2)}×; ${fixed(toRawNats, 2)}× on the single app); p99 ${fixed(oursZipf.p99Ms)} ms against the floor's ${fixed(rawNatsZipf.p99Ms)} ms. The largest of our services under this load: ${megabytes(zipfPeakBytes)} RSS ("${ZIPF_MEMORY_LABEL}" in the memory table; the memory target is read on the single app's loads, as before).`,
      '',
      `**Google Play (the sibling).** \`GET ${PLAY_DEVELOPER_PATH}\` (Google LLC, 135 apps: a bigger payload than the App Store app's) at the sibling's own gateway, with its own catalog (\`CATALOG_STORE=google-play\`), on the same payments and key, warm in its cache; a first warm-up and ${settings.rounds} rounds of ${settings.seconds} s after the rows above. "ours ÷ target" compares it with ours on the App Store app.`,
      '',
      markdownTable(header, rows([ours, playTarget], [oursSingle, playSingle], cpu).slice(1)),
    ].join('\n'),
  );
  report.check({
    name: 'credit path vs raw-NATS floor',
    target: '≥ 60 %',
    measured: percent(toRawNats),
    met: Number.isFinite(toRawNats) ? toRawNats >= 0.6 : undefined,
  });
  report.check({
    name: `credit path p99 at ${settings.connections} connections`,
    target: '≤ 30 ms',
    measured: `${fixed(oursSingle.p99Ms)} ms`,
    met: Number.isFinite(oursSingle.p99Ms) ? oursSingle.p99Ms <= 30 : undefined,
  });
  // Issue #22's targets: fewer messages per call (coalescing, the near cache) must beat the floor outright.
  report.check({
    name: 'credit path ÷ raw-NATS floor (coalesced, near cache)',
    target: '≥ 1.5×',
    measured: `${fixed(toRawNats, 2)}×`,
    met: Number.isFinite(toRawNats) ? toRawNats >= 1.5 : undefined,
  });
  report.check({
    name: `credit path p99 beside the raw-NATS floor's, ${settings.connections} connections`,
    target: "≤ the floor's",
    measured: `${fixed(oursSingle.p99Ms)} ms vs ${fixed(rawNatsSingle.p99Ms)} ms`,
    met:
      Number.isFinite(oursSingle.p99Ms) && Number.isFinite(rawNatsSingle.p99Ms)
        ? oursSingle.p99Ms <= rawNatsSingle.p99Ms
        : undefined,
  });
}
