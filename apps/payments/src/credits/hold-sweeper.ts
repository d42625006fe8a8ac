import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CreditStore } from '../persistence/credit-store.js';

/** How often each replica looks for lapsed holds, ms: a lapsed hold is back on its key within about this. */
export const SWEEP_INTERVAL_MS = 1_000;
/** Most holds of one shard given back per sweep; a full page is followed at once by the next. */
const PAGE = 500;

/**
 * Gives back the credit holds whose deadline passed: a priced call that reserved and then never
 * captured nor released (its gateway crashed, or the release was lost). Every replica sweeps every
 * shard; the release script gives a hold back at most once, so replicas sweeping together are harmless.
 */
@Injectable()
export class HoldSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('HoldSweeper');
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;

  constructor(@Inject(CreditStore) private readonly store: CreditStore) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweepInBackground(), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Releases every hold lapsed by `nowMs`; resolves with how many it gave back. */
  async sweep(nowMs = Date.now()): Promise<number> {
    let released = 0;
    for (const holdSet of this.store.keyspace.holdSets) {
      for (;;) {
        const lapsed = await this.store.lapsedHolds(holdSet, nowMs, PAGE);
        const outcomes = await Promise.all(lapsed.map((hold) => this.store.release(hold)));
        released += outcomes.filter(Boolean).length;
        if (lapsed.length < PAGE) break;
      }
    }
    return released;
  }

  private async sweepInBackground(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const released = await this.sweep();
      if (released > 0) this.logger.warn(`released ${released} credit holds never captured nor released in time`);
    } catch (error) {
      this.logger.warn(`credit holds not swept: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.sweeping = false;
    }
  }
}
