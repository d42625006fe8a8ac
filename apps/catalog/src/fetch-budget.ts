import { ErrorCode } from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import { CatalogMetrics } from '@appcat/ops';
import { Inject, Injectable } from '@nestjs/common';
import { FETCH_BUDGET_SETTINGS } from './catalog-tokens.js';

/** How much work one catalog replica takes on at once (see docs/catalog-resilience.md#fetch-budget). */
export interface FetchBudgetSettings {
  /** catalog.fetch handlers running at once on this replica. */
  maxInFlight: number;
  /** Longest a request waits for a slot before it is refused as not handled; 0 refuses at once when none is free. */
  maxQueueWaitMs: number;
}

interface Waiter {
  since: number;
  admit: () => void;
  refuse: (error: Error) => void;
  timer?: NodeJS.Timeout;
  /** Admitted or refused: its queue entry is dead. */
  done: boolean;
}

/**
 * The slots of one replica: at most `maxInFlight` fetches run at once, the rest wait first come, first
 * served, each at most `maxQueueWaitMs`. Each replica bounds its own work (and the upstream bodies and
 * parsed entries it holds), so capacity grows with replicas.
 *
 * Deadlock-free: a fetch takes one slot before it starts and never asks for another while holding it;
 * anything it waits for (a Redis lock, a batch, a rate-limiter token) is held by a fetch that already
 * runs, or times out by itself. A freed slot goes straight to the oldest waiter, so a newcomer cannot
 * overtake the queue.
 */
@Injectable()
export class FetchBudget {
  private inFlight = 0;
  private waiting = 0;
  /** FIFO; entries before `head` are gone, entries marked done are skipped. */
  private queue: (Waiter | undefined)[] = [];
  private head = 0;

  constructor(
    @Inject(FETCH_BUDGET_SETTINGS) readonly settings: FetchBudgetSettings,
    @Inject(CatalogMetrics) private readonly metrics: CatalogMetrics,
  ) {
    metrics.watchFetchBudget(() => ({ limit: settings.maxInFlight, inFlight: this.inFlight, waiting: this.waiting }));
  }

  /** Runs `work` in a slot, once one is free; rejects with SERVICE_UNAVAILABLE (not handled) past the wait bound. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    // While anyone waits every slot is taken (a freed slot is handed over, not returned), so this
    // check never lets a newcomer past the queue.
    if (this.inFlight < this.settings.maxInFlight) this.inFlight++;
    else await this.waitForSlot();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private waitForSlot(): Promise<void> {
    const { maxInFlight, maxQueueWaitMs } = this.settings;
    if (maxQueueWaitMs === 0) {
      this.metrics.fetchWaitSeconds.observe({ outcome: 'refused' }, 0);
      return Promise.reject(busy(maxInFlight, maxQueueWaitMs));
    }
    return new Promise<void>((admit, refuse) => {
      const waiter: Waiter = { since: performance.now(), admit, refuse, done: false };
      waiter.timer = setTimeout(() => this.refuse(waiter), maxQueueWaitMs);
      this.queue.push(waiter);
      this.waiting++;
    });
  }

  /** Hands the slot to the oldest live waiter, or frees it. */
  private release(): void {
    const next = this.takeOldest();
    if (!next) {
      this.inFlight--;
      return;
    }
    next.done = true;
    clearTimeout(next.timer);
    this.waiting--;
    this.metrics.fetchWaitSeconds.observe({ outcome: 'admitted' }, (performance.now() - next.since) / 1000);
    next.admit();
  }

  private refuse(waiter: Waiter): void {
    if (waiter.done) return;
    waiter.done = true;
    this.waiting--;
    this.metrics.fetchWaitSeconds.observe({ outcome: 'refused' }, (performance.now() - waiter.since) / 1000);
    // Every waiter has the same bound, so the one timing out is nearly always the oldest: drop it now.
    this.skipDone();
    waiter.refuse(busy(this.settings.maxInFlight, this.settings.maxQueueWaitMs));
  }

  private takeOldest(): Waiter | undefined {
    this.skipDone();
    if (this.head >= this.queue.length) return undefined;
    const waiter = this.queue[this.head]!;
    this.queue[this.head++] = undefined;
    this.compact();
    return waiter;
  }

  private skipDone(): void {
    while (this.head < this.queue.length && this.queue[this.head]!.done) this.queue[this.head++] = undefined;
    this.compact();
  }

  /** Drops the dead prefix once it is most of the array, so the queue's memory follows its length. */
  private compact(): void {
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }
}

function busy(maxInFlight: number, maxQueueWaitMs: number): WireException {
  const waited = maxQueueWaitMs === 0 ? 'and no waiting allowed' : `and none freed up within ${maxQueueWaitMs} ms`;
  return new WireException(
    ErrorCode.ServiceUnavailable,
    `catalog replica busy: all ${maxInFlight} fetch slots taken ${waited}; not handled, retry`,
  );
}
