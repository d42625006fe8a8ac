import { type CatalogReply, Subject } from '@appcat/contracts';
import { NatsRpcClient, RpcCallError } from '@appcat/microservice';
import { randomUUID } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { percentile } from '../stats.js';
import type { NatsLoad, NatsLoadResult } from './nats-load.js';

const load = workerData as NatsLoad;
const client = await NatsRpcClient.connect(
  { servers: [load.natsUrl], requestTimeoutMs: 30_000, shutdownGraceMs: 0 },
  'bench-load',
);
const latencies: number[] = [];
const errorCodes: Record<string, number> = {};
const sources: Record<string, number> = {};
let next = 0;
const started = performance.now();
const deadline = started + load.seconds * 1000;

async function worker(): Promise<void> {
  while (performance.now() < deadline && next < load.queries.length) {
    const query = load.queries[next++];
    const began = performance.now();
    try {
      const reply = await client.request<CatalogReply>(
        Subject.CatalogFetch,
        { query, requestId: randomUUID() },
        { service: 'catalog' },
      );
      const source = reply.source ?? 'upstream';
      sources[source] = (sources[source] ?? 0) + 1;
    } catch (error) {
      const code = error instanceof RpcCallError ? error.code : 'ERROR';
      errorCodes[code] = (errorCodes[code] ?? 0) + 1;
    }
    latencies.push(performance.now() - began);
  }
}

await Promise.all(Array.from({ length: load.concurrency }, worker));
const elapsedSeconds = (performance.now() - started) / 1000;
await client.close();
const errors = Object.values(errorCodes).reduce((a, b) => a + b, 0);
const answer: NatsLoadResult = {
  requestsPerSecond: (latencies.length - errors) / elapsedSeconds,
  p50Ms: percentile(latencies, 50),
  p99Ms: percentile(latencies, 99),
  errors,
  requests: latencies.length,
  errorCodes,
  sources,
};
parentPort!.postMessage(answer);
