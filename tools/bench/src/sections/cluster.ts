import { hashApiKey } from '@appcat/contracts';
import { CreditKeyspace } from '@appcat/payments';
import { RedisClusterHarness } from '@appcat/testing';
import { Redis } from 'ioredis';
import { runHttpLoad, type HttpLoadResult } from '../load/http-load.js';
import type { Report } from '../report.js';
import type { BenchSettings } from '../settings.js';
import { Stack } from '../stack.js';
import { interleave, ratio, summarise } from '../stats.js';
import { count, fixed, markdownTable } from '../table.js';
import { BENCH_PATH } from './credits.js';

const log = (line: string) => process.stdout.write(`${line}\n`);
/** The payments default on a cluster (LEDGER_STREAM_SHARDS unset). */
const CLUSTER_SHARDS = 12;
const RECOVERY_LIMIT_MS = 60_000;
/** API keys each target's load spreads its calls over, as many callers would: on the cluster their debits land on every primary (by ledger shard). */
const KEYS = 12;

interface Target {
  name: string;
  stack: Stack;
  keys: string[];
}

/** One credit-paid call; its HTTP status (0 when the request itself failed). */
async function paidCall(url: string, key: string): Promise<number> {
  try {
    const response = await fetch(url + BENCH_PATH, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(5_000),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

/**
 * Credit-paid calls of 12 keys with payments and the catalog on a 3-primary Redis Cluster (one replica
 * each) beside the same stack on one Redis, interleaved in one run; then the primary holding one key is
 * killed under load, and the time until its calls succeed again is measured. Printed, not asserted.
 */
export async function clusterSection(settings: BenchSettings, report: Report): Promise<void> {
  const cluster = await RedisClusterHarness.start();
  const stacks: Stack[] = [];
  try {
    const single = await Stack.start({ x402: false, nodeArgs: () => settings.serviceNodeArgs });
    stacks.push(single);
    const clustered = await Stack.start({
      x402: false,
      nodeArgs: () => settings.serviceNodeArgs,
      env: { REDIS_CLUSTER_NODES: cluster.nodesSetting },
    });
    stacks.push(clustered);
    const targets: Target[] = [];
    for (const [name, stack] of [
      ['one Redis', single],
      ['Redis Cluster, 3 primaries', clustered],
    ] as const) {
      const keys: string[] = [];
      for (let i = 0; i < KEYS; i++) keys.push((await stack.createKey('10000')).key);
      for (const key of keys)
        if ((await paidCall(stack.gatewayUrl, key)) !== 200) throw new Error(`${name}: warm-up call failed`);
      targets.push({ name, stack, keys });
    }
    const load = (target: Target, seconds: number) =>
      runHttpLoad({
        url: target.stack.gatewayUrl + BENCH_PATH,
        connections: settings.connections,
        seconds,
        authorizations: target.keys.map((key) => `Bearer ${key}`),
      });
    const results = new Map<string, HttpLoadResult[]>(targets.map((t) => [t.name, []]));
    for (const { round, target } of interleave(targets, settings.rounds)) {
      if (settings.warmupSeconds > 0) await load(target, settings.warmupSeconds);
      const result = await load(target, settings.seconds);
      results.get(target.name)!.push(result);
      log(
        `  cluster round ${round + 1}: ${target.name}: ${count(result.requestsPerSecond)} req/s, p50 ${fixed(result.p50Ms)} ms, p99 ${fixed(result.p99Ms)} ms, errors ${result.errors}`,
      );
    }
    const [one, three] = targets.map((t) => summarise(results.get(t.name)!));
    const clusterRatio = ratio(three.requestsPerSecond, one.requestsPerSecond);

    // The primary serving one key (its ledger shard's slot) dies while calls keep coming.
    const victim = targets[1];
    const key = victim.keys[0];
    const stream = new CreditKeyspace('credit:ledger', CLUSTER_SHARDS).streamOf(hashApiKey(key));
    const probe = new Redis(cluster.seeds[0].port, '127.0.0.1');
    const slot = Number(await probe.cluster('KEYSLOT', stream));
    probe.disconnect();
    const primary = await cluster.primaryOf(slot);
    const background = load(victim, Math.max(5, settings.seconds));
    await new Promise((resolve) => setTimeout(resolve, 500));
    // What a call takes under this load before the kill; recovered = the first call back to that.
    const before: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = Date.now();
      if ((await paidCall(victim.stack.gatewayUrl, key)) === 200) before.push(Date.now() - started);
    }
    const normalMs = 2 * Math.max(50, ...before);
    const killedAt = Date.now();
    await cluster.kill(primary);
    let recoveredAt = -1;
    let failures = 0;
    while (Date.now() - killedAt < RECOVERY_LIMIT_MS) {
      const started = Date.now();
      const status = await paidCall(victim.stack.gatewayUrl, key);
      if (status !== 200) failures++;
      else if (Date.now() - started <= normalMs && (failures > 0 || Date.now() - killedAt > cluster.nodeTimeoutMs)) {
        recoveredAt = Date.now();
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const duringFailover = await background;
    const recoverySeconds = recoveredAt < 0 ? Number.NaN : (recoveredAt - killedAt) / 1000;
    log(
      `  cluster: primary ${primary} killed; the key's calls back to normal after ${Number.isNaN(recoverySeconds) ? 'more than 60' : fixed(recoverySeconds, 2)} s (${failures} probe calls failed); ${duringFailover.errors} errors of ${duringFailover.requests} calls under load`,
    );

    report.add(
      `Credit-paid calls on a Redis Cluster, ${settings.connections} connections`,
      [
        `The credit-paid call of the credit section, its calls spread over ${KEYS} API keys (one replica each of gateway, payments and catalog) on one Redis and, in the same run, on a private Redis Cluster of 3 primaries with one replica each (\`LEDGER_STREAM_SHARDS\` ${CLUSTER_SHARDS}, catalog cache on the cluster too); ${settings.rounds} interleaved rounds of ${settings.seconds} s. Then the primary serving one of the keys is killed (kill -9) under the same load; recovery is the time from the kill until that key's calls succeed again (its replica promoted after \`cluster-node-timeout\` ${cluster.nodeTimeoutMs} ms and the client's slot refresh).`,
        '',
        markdownTable(
          ['Redis', 'req/s', 'p50 ms', 'p99 ms', 'errors'],
          [
            [targets[0].name, count(one.requestsPerSecond), fixed(one.p50Ms), fixed(one.p99Ms), String(one.errors)],
            [
              targets[1].name,
              count(three.requestsPerSecond),
              fixed(three.p50Ms),
              fixed(three.p99Ms),
              String(three.errors),
            ],
          ],
        ),
        '',
        `Cluster ÷ one Redis: **${fixed(clusterRatio, 2)}×** (${KEYS} keys: their debits spread over the primaries by ledger shard, the catalog's reads by resource). Recovery after a primary was killed: **${Number.isNaN(recoverySeconds) ? '> 60' : fixed(recoverySeconds, 2)} s** (${failures} probe calls failed); ${duringFailover.errors} of ${duringFailover.requests} calls of the load failed during its ${Math.max(5, settings.seconds)} s window.`,
      ].join('\n'),
    );
  } finally {
    for (const stack of stacks) await stack.stop().catch(() => undefined);
    await cluster.stop();
  }
}
