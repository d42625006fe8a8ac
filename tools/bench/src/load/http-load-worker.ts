import autocannon from 'autocannon';
import { parentPort, workerData } from 'node:worker_threads';
import type { HttpLoad, HttpLoadResult } from './http-load.js';

const load = workerData as HttpLoad;
const authorizations = load.authorizations ?? [];
const paths = load.paths ?? [];
let nextAuthorization = 0;
let nextPath = 0;
interface Request {
  path?: string;
  headers?: Record<string, string>;
}
// Only a load that varies per request rewrites each one: autocannon then builds every request anew.
const rewrite = (request: Request): Request => ({
  ...request,
  ...(paths.length > 0 ? { path: paths[nextPath++ % paths.length] } : {}),
  ...(authorizations.length > 0
    ? { headers: { ...request.headers, authorization: authorizations[nextAuthorization++ % authorizations.length] } }
    : {}),
});
const requests = authorizations.length > 0 || paths.length > 0 ? [{ setupRequest: rewrite }] : undefined;
const options = {
  url: load.url,
  connections: load.connections,
  duration: load.seconds,
  headers: load.headers,
  requests,
  timeout: 10,
};
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
