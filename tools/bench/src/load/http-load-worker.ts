import autocannon from 'autocannon';
import { parentPort, workerData } from 'node:worker_threads';
import type { HttpLoad, HttpLoadResult } from './http-load.js';

const load = workerData as HttpLoad;
let next = 0;
const authorizations = load.authorizations ?? [];
const requests =
  authorizations.length > 0
    ? [{ setupRequest: (request: { headers?: Record<string, string> }) => ({ ...request, headers: { ...request.headers, authorization: authorizations[next++ % authorizations.length] } }) }]
    : undefined;
const options = { url: load.url, connections: load.connections, duration: load.seconds, headers: load.headers, requests, timeout: 10 };
// Inside a worker thread autocannon leaves its histograms raw; aggregating them is one call.
const raw = await autocannon(options);
const result = autocannon.aggregateResult([raw], options);
const answer: HttpLoadResult = {
  requestsPerSecond: raw.totalCompletedRequests / load.seconds,
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  errors: raw.errors + raw.timeouts + raw.non2xx,
  requests: raw.totalCompletedRequests,
  non2xx: raw.non2xx,
};
parentPort!.postMessage(answer);
