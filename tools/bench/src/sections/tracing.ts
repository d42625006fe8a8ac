import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pinAlike } from '../cpu-pinning.js';
import { runHttpLoad, type HttpLoadResult } from '../load/http-load.js';
import type { Report } from '../report.js';
import { cpuMs, RssSampler } from '../rss.js';
import type { BenchSettings } from '../settings.js';
import { Stack } from '../stack.js';
import { median, ratio, summarise } from '../stats.js';
import { count, fixed, markdownTable, percent } from '../table.js';
import { BENCH_PATH } from './credits.js';

/** Added to the names of processes measured with tracing on in the memory table (not the memory target: tracing is off as deployed). */
export const TRACED_MEMORY_LABEL = 'tracing on';

/** The sampling the row is measured at, as an operator would set it. */
const SAMPLING = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' };

const log = (line: string) => process.stdout.write(`${line}\n`);

/** A collector's OTLP/HTTP endpoint that takes every export and keeps only its size. */
async function startOtlpSink(): Promise<{ url: string; bytes: () => number; close: () => Promise<void> }> {
  let bytes = 0;
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (bytes += chunk.length));
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bytes: () => bytes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface TracingTarget {
  name: string;
  stack: Stack;
  key: string;
}

/**
 * The credit path with tracing on, 10 % of calls sampled and exported (OTLP/HTTP protobuf, to a sink
 * in this process), beside the same path with tracing off: two stacks of our three services, each on
 * its own NATS, Redis and database, loaded at the same time in each round.
 */
export async function tracingSection(settings: BenchSettings, report: Report): Promise<void> {
  const sink = await startOtlpSink();
  // BENCH_CPU_PROF=<dir>: the services write V8 CPU profiles when they stop, as <dir>/off/gateway.cpuprofile…
  const profileDir = process.env.BENCH_CPU_PROF;
  const nodeArgs = (stack: 'off' | 'on') => (kind: string) => [
    ...(profileDir
      ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, stack)}`, `--cpu-prof-name=${kind}.cpuprofile`]
      : []),
    ...settings.serviceNodeArgs,
  ];
  const stacks: Stack[] = [];
  try {
    const off = await Stack.start({ x402: false, nodeArgs: nodeArgs('off') });
    stacks.push(off);
    const on = await Stack.start({
      x402: false,
      nodeArgs: nodeArgs('on'),
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, ...SAMPLING },
    });
    stacks.push(on);
    const pinning = await pinAlike(stacks);
    log(`  tracing: ${pinning}`);
    const targets: TracingTarget[] = [];
    for (const [name, stack] of [
      ['tracing off (as deployed)', off],
      ['tracing on, 10 % sampled', on],
    ] as const) {
      const { key } = await stack.createKey('10000');
      for (let i = 0; i < 2; i++) {
        const response = await fetch(stack.gatewayUrl + BENCH_PATH, { headers: { authorization: `Bearer ${key}` } });
        if (response.status !== 200) throw new Error(`${name}: warm-up call answered ${response.status}`);
        await response.arrayBuffer();
      }
      targets.push({ name, stack, key });
    }
    const results = new Map<string, HttpLoadResult[]>(targets.map((t) => [t.name, []]));
    const cpu = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    const ratios: number[] = [];
    const load = (target: TracingTarget, seconds: number) =>
      runHttpLoad({
        url: target.stack.gatewayUrl + BENCH_PATH,
        connections: settings.connections,
        seconds,
        headers: { authorization: `Bearer ${target.key}` },
      });
    const bothAtOnce = (seconds: number) => Promise.all(targets.map((target) => load(target, seconds)));
    const pidsOf = (target: TracingTarget) =>
      new Map(['gateway', 'payments', 'catalog'].map((name) => [name, target.stack.services.get(name)!.process.pid]));
    const cpuOf = async (pids: number[]) => {
      let total = 0;
      for (const pid of pids) total += (await cpuMs(pid)) ?? 0;
      return total;
    };
    if (settings.firstWarmupSeconds > 0) await bothAtOnce(settings.firstWarmupSeconds);
    for (let round = 0; round < settings.rounds; round++) {
      if (settings.warmupSeconds > 0) await bothAtOnce(settings.warmupSeconds);
      const sampler = new RssSampler(
        new Map(
          targets.flatMap((target) =>
            [...pidsOf(target)].map(([name, pid]): [string, number] => [
              target.stack === on ? `${name} (${TRACED_MEMORY_LABEL})` : name,
              pid,
            ]),
          ),
        ),
      ).start();
      const before = await Promise.all(targets.map((target) => cpuOf([...pidsOf(target).values()])));
      const loads = await bothAtOnce(settings.seconds);
      const after = await Promise.all(targets.map((target) => cpuOf([...pidsOf(target).values()])));
      for (const [name, bytes] of sampler.stop()) report.peak(name, bytes);
      targets.forEach((target, i) => {
        const result = loads[i];
        const cpuPerRequestMs = (after[i] - before[i]) / Math.max(1, result.requests);
        results.get(target.name)!.push(result);
        cpu.get(target.name)!.push(cpuPerRequestMs);
        log(
          `  tracing round ${round + 1}: ${target.name}: ${count(result.requestsPerSecond)} req/s, p50 ${fixed(result.p50Ms)} ms, p99 ${fixed(result.p99Ms)} ms, errors ${result.errors}, CPU ${fixed(cpuPerRequestMs * 1000, 0)} µs/request`,
        );
      });
      ratios.push(ratio(loads[1].requestsPerSecond, loads[0].requestsPerSecond));
      log(`  tracing round ${round + 1}: on ÷ off ${fixed(ratios[round], 3)}`);
    }
    const [offSummary, onSummary] = targets.map((t) => summarise(results.get(t.name)!));
    const onToOff = median(ratios);
    const rows = targets.map((t, i) => {
      const s = i === 0 ? offSummary : onSummary;
      return [
        t.name,
        count(s.requestsPerSecond),
        fixed(s.p50Ms),
        fixed(s.p99Ms),
        fixed(median(cpu.get(t.name)!) * 1000, 0),
        percent(s.spread),
        String(s.errors),
        i === 0 ? '1.00' : `${fixed(onToOff, 2)} (${ratios.map((r) => fixed(r, 2)).join(', ')})`,
      ];
    });
    report.add(
      `Credit-paid calls with tracing on, ${settings.connections} connections each, both stacks at once`,
      [
        `\`GET ${BENCH_PATH}\` as in the credits section, on two stacks of our three services started alike except that one has \`OTEL_EXPORTER_OTLP_ENDPOINT\` set (OTLP/HTTP protobuf to a sink in the bench process, which reads and drops ${count(sink.bytes() / 1024)} KiB of exports over the run) and \`OTEL_TRACES_SAMPLER=parentbased_traceidratio\`, \`OTEL_TRACES_SAMPLER_ARG=0.1\`: every call makes its spans' context and propagates it over NATS, one in ten is recorded and exported. ${settings.rounds} rounds of ${settings.seconds} s, each loading both stacks at the same time, so that both meet the machine in the same state: on ÷ off is the median of the rounds' ratios (each round's in brackets). CPUs: ${pinning}. Rounds one stack after the other, as the credits section runs, varied more between two identical untraced stacks than tracing costs, and so did two stacks loaded at once unpinned (docs/bench-findings.md).`,
        '',
        markdownTable(['target', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'spread', 'errors', 'on ÷ off'], rows),
      ].join('\n'),
    );
    report.check({
      name: 'credit path with tracing on at 10 % sampling',
      target: 'within 10 % of tracing off',
      measured: `${percent(onToOff)} of its throughput`,
      met: Number.isFinite(onToOff) ? onToOff >= 0.9 : undefined,
    });
    // The service whose memory tracing adds most to (its Redis and Postgres calls are instrumented).
    const paymentsPeak = report.memory.get(`payments (${TRACED_MEMORY_LABEL})`)?.peakBytes;
    report.check({
      name: 'payments with tracing on at 10 % sampling, under load',
      target: '< 150 MB RSS',
      measured: paymentsPeak === undefined ? 'not measured' : `${(paymentsPeak / 1024 / 1024).toFixed(1)} MB`,
      met: paymentsPeak === undefined ? undefined : paymentsPeak < 150 * 1024 * 1024,
    });
  } finally {
    for (const stack of stacks) await stack.stop();
    await sink.close();
  }
}
