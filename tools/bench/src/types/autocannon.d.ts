// autocannon ships no types; this is the part of its programmatic API the bench uses.
declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
    total: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
    start: Date;
    finish: Date;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    headers?: Record<string, string>;
    timeout?: number;
  }
  /** What a run resolves with inside a worker thread: histograms not yet aggregated. */
  interface RawResult {
    totalCompletedRequests: number;
    errors: number;
    timeouts: number;
    non2xx: number;
  }
  function autocannon(options: Options): Promise<RawResult> & { stop(): void };
  namespace autocannon {
    function aggregateResult(results: RawResult[], options: Options): Result;
  }
  export default autocannon;
}
