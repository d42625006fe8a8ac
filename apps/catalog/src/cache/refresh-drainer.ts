import { Logger } from '@nestjs/common';
import type { BudgetState } from '../upstream/rate-limiter.js';
import type { RedisResourceStore, RefreshOutcome } from './redis-resource-store.js';
import type { QueuedRefresh, RefreshJob, RefreshQueue } from './refresh-queue.js';
import type { ResourceRequest } from './resource-store.js';

export interface RefreshDrainerOptions {
  /** The upstream hosts whose queues are drained. */
  upstreams: readonly string[];
  intervalMs: number;
  /** Most keys taken off a host's queue at a time. */
  maxKeys: number;
  /** Most ids one batched call carries (UPSTREAM_BATCH_MAX_IDS). */
  batchMaxIds: number;
  /** Tokens of a host's budget left to callers' cold misses: refreshes spend only what is above. */
  reserveTokens: number;
  /**
   * Per host, ms between guaranteed refresh calls (its share of the budget over every egress), which
   * queue for a token like a caller's; absent: refreshes only spend spare tokens.
   */
  guaranteedEveryMs: ReadonlyMap<string, number>;
}

/** What the drainer needs of the rate limiter: what a host's budget holds now, nothing taken. */
export interface BudgetReader {
  state(upstream: string): Promise<BudgetState>;
}

/** Rebuilds the request a job describes (the store adapter's resources); undefined for a job it does not know. */
export type RefreshRebuilder = (job: RefreshJob) => ResourceRequest<unknown> | undefined;

/**
 * Which of the keys taken off a queue (most requested first) `calls` upstream calls refresh: each
 * key in its own call, except keys of one batch group, which share a call of up to `batchMaxIds` ids.
 * Calls go to the most requested keys; a key whose group has a call with room joins it for free. The
 * steady-state model uses the same choice.
 */
export function chooseRefreshes<R extends { job: Pick<RefreshJob, 'group'> }>(
  taken: readonly R[],
  calls: number,
  batchMaxIds: number,
): { chosen: R[]; rest: R[] } {
  const open = new Map<string, number>();
  const chosen: R[] = [];
  const rest: R[] = [];
  let used = 0;
  for (const refresh of taken) {
    const group = refresh.job.group;
    const room = group === undefined ? 0 : (open.get(group) ?? 0);
    if (room > 0) {
      open.set(group!, room - 1);
      chosen.push(refresh);
    } else if (used < calls) {
      used++;
      chosen.push(refresh);
      if (group !== undefined) open.set(group, batchMaxIds - 1);
    } else {
      rest.push(refresh);
    }
  }
  return { chosen, rest };
}

/**
 * Each replica's worker of the shared refresh queue: every `intervalMs` it spends each host's tokens
 * above `reserveTokens` (kept for callers' cold misses) on the most requested stale keys, grouped by
 * batched call; with none to spare, one call per `guaranteedEveryMs`, so a long tail of cold misses
 * cannot starve popular keys. Its calls go through the callers' batchers and guarded client, so the
 * token buckets hold the budget: two replicas reading the same tokens at once never send more.
 */
export class RefreshDrainer {
  private readonly logger = new Logger('RefreshDrainer');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  private lastWarning = 0;
  /** Counts of refresh outcomes, for metrics and tests. */
  readonly outcomes = new Map<RefreshOutcome | 'unknown', number>();

  constructor(
    private readonly queue: RefreshQueue,
    private readonly store: RedisResourceStore,
    private readonly budget: BudgetReader,
    private readonly rebuild: RefreshRebuilder,
    private readonly options: RefreshDrainerOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One pass over every host's queue (the timer runs it; tests may call it). */
  async drainOnce(): Promise<number> {
    let refreshed = 0;
    for (const upstream of this.options.upstreams) {
      try {
        refreshed += await this.drainHost(upstream);
      } catch (error) {
        // Redis away: the cache serves without it; say so at most every 30 s.
        if (Date.now() - this.lastWarning > 30_000) {
          this.lastWarning = Date.now();
          this.logger.warn(
            `refresh queue of ${upstream} not drained: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
    }
    return refreshed;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.drainOnce().then(
        () => this.schedule(),
        () => this.schedule(),
      );
    }, this.options.intervalMs);
    this.timer.unref();
  }

  private async drainHost(upstream: string): Promise<number> {
    const { tokens } = await this.budget.state(upstream);
    let calls = Math.floor(tokens - this.options.reserveTokens);
    if (calls < 1) {
      // Cold misses take every token: the guaranteed share still gets one call now and then, which
      // waits its turn for a token (or is refused) like a caller's.
      const every = this.options.guaranteedEveryMs.get(upstream);
      if (every === undefined || !(await this.queue.takeTurn(upstream, every))) return 0;
      calls = 1;
    }
    const taken = await this.queue.take(upstream, this.options.maxKeys);
    if (taken.length === 0) return 0;
    const { chosen, rest } = chooseRefreshes(taken, calls, this.options.batchMaxIds);
    await this.queue.putBack(upstream, rest);
    const results = await Promise.all(chosen.map((refresh) => this.refreshOne(refresh)));
    return results.filter((outcome) => outcome === 'refreshed').length;
  }

  private async refreshOne(refresh: QueuedRefresh): Promise<RefreshOutcome | 'unknown'> {
    const request = this.rebuild(refresh.job);
    const outcome = request && request.key === refresh.key ? await this.store.refresh(request) : 'unknown';
    this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1);
    return outcome;
  }
}
