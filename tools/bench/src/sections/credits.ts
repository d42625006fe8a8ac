import { Redis } from 'ioredis';
import { FLOOR_PAYLOAD_KEY } from '../floors/floor-env.js';
import { runHttpLoad, type HttpLoadResult } from '../load/http-load.js';
import type { Report } from '../report.js';
import { cpuMs, residentBytes, RssSampler } from '../rss.js';
import type { BenchSettings } from '../settings.js';
import { type Service, type Stack, startFloor } from '../stack.js';
import { interleave, median, ratio, summarise } from '../stats.js';
import { count, fixed, markdownTable, percent } from '../table.js';

/** Facebook in the emulator's catalogue, as in the e2e suites. */
export const BENCH_APP_ID = '284882215';
export const BENCH_PATH = `/api/apps/${BENCH_APP_ID}`;

interface Target {
  name: string;
  url: string;
  /** Processes whose resident size counts for this target. */
  processes: string[];
}

const log = (line: string) => process.stdout.write(`${line}\n`);

async function processCpuMs(pids: number[]): Promise<number> {
  let total = 0;
  for (const pid of pids) total += (await cpuMs(pid)) ?? 0;
  return total;
}

/** One credit-paid call through our gateway: proves the path works and leaves the data in the cache. */
async function warmCall(url: string, key: string): Promise<{ data: unknown; cache: string | null }> {
  const response = await fetch(url + BENCH_PATH, { headers: { authorization: `Bearer ${key}` } });
  const body = (await response.json()) as { status: number; message: string; data: unknown };
  if (response.status !== 200) throw new Error(`warm-up call answered ${response.status} ${body.message}`);
  return { data: body.data, cache: response.headers.get('x-cache') };
}

/**
 * Section 1: credit-paid calls on a warm cache, our full stack beside two floors: (a) bare Fastify
 * answering the payload from Redis, (b) the same gateway → payments → catalog path over raw NATS.
 */
export async function creditSection(stack: Stack, settings: BenchSettings, report: Report): Promise<void> {
  const key = await stack.createKey('10000');
  const auth = { authorization: `Bearer ${key.key}` };
  await warmCall(stack.gatewayUrl, key.key);
  const warm = await warmCall(stack.gatewayUrl, key.key);
  if (warm.cache !== 'CACHE') throw new Error(`second call was not served from the cache (x-cache ${warm.cache})`);

  const redis = new Redis(stack.redis.url);
  await redis.set(FLOOR_PAYLOAD_KEY, JSON.stringify(warm.data));
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
    if (JSON.stringify(answer.data) !== JSON.stringify(warm.data)) throw new Error(`${name} does not answer the same data`);
  }

  for (const name of ['gateway', 'payments', 'catalog']) report.idle(name, await residentBytes(stack.services.get(name)!.process.pid));

  const targets: Target[] = [
    { name: 'ours (gateway → payments → catalog, NestJS)', url: stack.gatewayUrl, processes: ['gateway', 'payments', 'catalog'] },
    { name: 'floor (b): raw NATS, no NestJS', url: stack.services.get('floor gateway')!.url!, processes: ['floor gateway', 'floor payments', 'floor catalog'] },
    { name: 'floor (a): bare Fastify + Redis', url: stack.services.get('floor fastify')!.url!, processes: ['floor fastify'] },
  ];
  const results = new Map<string, HttpLoadResult[]>(targets.map((t) => [t.name, []]));
  const cpu = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  const load = (target: Target, seconds: number) => runHttpLoad({ url: target.url + BENCH_PATH, connections: settings.connections, seconds, headers: auth });
  // Every target, ours and the floors alike, reaches its steady state before round 1 (see firstWarmupSeconds).
  if (settings.firstWarmupSeconds > 0) for (const target of targets) await load(target, settings.firstWarmupSeconds);
  for (const { round, target } of interleave(targets, settings.rounds)) {
    if (settings.warmupSeconds > 0) await load(target, settings.warmupSeconds);
    const pids = new Map(target.processes.map((name) => [name, stack.services.get(name)!.process.pid]));
    const sampler = new RssSampler(pids).start();
    const cpuBefore = await processCpuMs([...pids.values()]);
    const result = await load(target, settings.seconds);
    const cpuPerRequestMs = ((await processCpuMs([...pids.values()])) - cpuBefore) / Math.max(1, result.requests);
    for (const [name, bytes] of sampler.stop()) report.peak(name, bytes);
    results.get(target.name)!.push(result);
    cpu.get(target.name)!.push(cpuPerRequestMs);
    log(`  credits round ${round + 1}: ${target.name}: ${count(result.requestsPerSecond)} req/s, p50 ${fixed(result.p50Ms)} ms, p99 ${fixed(result.p99Ms)} ms, errors ${result.errors}, CPU ${fixed(cpuPerRequestMs * 1000, 0)} µs/request`);
  }

  const [ours, rawNats, fastify] = targets.map((t) => summarise(results.get(t.name)!));
  const rows = targets.map((t, i) => {
    const s = [ours, rawNats, fastify][i];
    const cpuUs = median(cpu.get(t.name)!) * 1000;
    return [t.name, count(s.requestsPerSecond), fixed(s.p50Ms), fixed(s.p99Ms), fixed(cpuUs, 0), percent(s.spread), String(s.errors), i === 0 ? '1.00' : fixed(ratio(ours.requestsPerSecond, s.requestsPerSecond), 2)];
  });
  const toRawNats = ratio(ours.requestsPerSecond, rawNats.requestsPerSecond);
  report.add(
    `Credit-paid calls, warm cache, ${settings.connections} connections`,
    [
      `\`GET ${BENCH_PATH}\` with \`Authorization: Bearer\`, autocannon in a worker thread, ${settings.rounds} interleaved rounds of ${settings.seconds} s per target. Ours: one replica each of gateway, payments and catalog (built dist processes) on private NATS and Redis and a Postgres database. Floor (b): the same path as three tiny processes on the raw \`@nats-io/transport-node\` client (the same Redis Lua debit through payments' \`CreditStore\`, the payload read from Redis and passed through as bytes). Floor (a): one Fastify process answering the payload from Redis, no payment.`,
      '',
      markdownTable(['target', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'spread', 'errors', 'ours ÷ target'], rows),
      '',
      `Ours ÷ raw-NATS floor: **${percent(toRawNats)}** of its throughput; ours ÷ bare Fastify: **${percent(ratio(ours.requestsPerSecond, fastify.requestsPerSecond))}**. CPU per request is the target's own processes (utime + stime from /proc, 10 ms ticks), not NATS, Redis or the load generator: it says where the time goes even when other work on the machine moves the throughput. (spread: (max − min) ÷ median of req/s over the rounds.)`,
    ].join('\n'),
  );
  report.check({ name: 'credit path vs raw-NATS floor', target: '≥ 60 %', measured: percent(toRawNats), met: Number.isFinite(toRawNats) ? toRawNats >= 0.6 : undefined });
  report.check({ name: `credit path p99 at ${settings.connections} connections`, target: '≤ 30 ms', measured: `${fixed(ours.p99Ms)} ms`, met: Number.isFinite(ours.p99Ms) ? ours.p99Ms <= 30 : undefined });
  // Issue #22's targets: fewer messages per call (coalescing, the near cache) must beat the floor outright.
  report.check({
    name: 'credit path ÷ raw-NATS floor (coalesced, near cache)',
    target: '≥ 1.5×',
    measured: `${fixed(toRawNats, 2)}×`,
    met: Number.isFinite(toRawNats) ? toRawNats >= 1.5 : undefined,
  });
  report.check({
    name: `credit path p99 beside the raw-NATS floor's, ${settings.connections} connections`,
    target: '≤ the floor\'s',
    measured: `${fixed(ours.p99Ms)} ms vs ${fixed(rawNats.p99Ms)} ms`,
    met: Number.isFinite(ours.p99Ms) && Number.isFinite(rawNats.p99Ms) ? ours.p99Ms <= rawNats.p99Ms : undefined,
  });
}
