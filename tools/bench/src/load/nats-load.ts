import type { CatalogQuery } from '@appcat/contracts';
import { Worker } from 'node:worker_threads';
import type { RoundFigures } from '../stats.js';

export interface NatsLoad {
  natsUrl: string;
  concurrency: number;
  seconds: number;
  /** Sent in order, each once; the run ends early if they run out. */
  queries: CatalogQuery[];
}

export interface NatsLoadResult extends RoundFigures {
  requests: number;
  /** Error counts by code. */
  errorCodes: Record<string, number>;
  /** Answers by source (upstream, cache, stale). */
  sources: Record<string, number>;
}

/** Sends catalog.fetch requests from a worker thread, `concurrency` in flight, for `seconds`. */
export function runNatsLoad(load: NatsLoad): Promise<NatsLoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./nats-load-worker.js', import.meta.url), { workerData: load });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`load worker exited with ${code}`))));
  });
}
