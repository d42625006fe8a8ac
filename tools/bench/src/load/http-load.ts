import { Worker } from 'node:worker_threads';
import type { RoundFigures } from '../stats.js';

export interface HttpLoad {
  url: string;
  connections: number;
  seconds: number;
  headers?: Record<string, string>;
  /** `Authorization` values sent in turn, one per request (many API keys' traffic); on top of `headers`. */
  authorizations?: string[];
  /** Paths requested in turn, one per request, in place of `url`'s (a mix of resources, replayed from the first each run). */
  paths?: string[];
}

export interface HttpLoadResult extends RoundFigures {
  requests: number;
  non2xx: number;
}

/**
 * Runs autocannon in a worker thread, so the load generator never shares an event loop with anything
 * the bench measures (the servers are processes of their own anyway).
 */
export function runHttpLoad(load: HttpLoad): Promise<HttpLoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./http-load-worker.js', import.meta.url), { workerData: load });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`load worker exited with ${code}`))));
  });
}
