import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { FacilitatorConnection, SUPPORTED_RETRY_MS } from './facilitator-connection.js';
import { describe } from './payment-payload.js';

/**
 * Payments' start-up check of its facilitator: `/supported` must list every configured network. It runs
 * in the background from the start of the app; readiness waits for it, and main fails start-up when it
 * finds a network missing (offering it would only take payments nobody can settle).
 */
@Injectable()
export class FacilitatorCheck implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('FacilitatorCheck');
  private readonly stopping = new AbortController();
  private running: Promise<void> | null = null;
  private passedCheck = false;

  constructor(@Inject(FacilitatorConnection) private readonly connection: FacilitatorConnection) {}

  onModuleInit(): void {
    this.outcome();
  }

  /** Settles with the check, started if it was not: resolves once it passed, rejects naming what is missing. */
  outcome(): Promise<void> {
    if (!this.running) {
      this.running = this.run(SUPPORTED_RETRY_MS, this.stopping.signal);
      // main awaits it; a process that does not (a test of something else) must not crash on it.
      this.running.catch((error: unknown) => this.logger.error(describe(error)));
    }
    return this.running;
  }

  /** Whether `/supported` has been read and lists every configured network. */
  get passed(): boolean {
    return this.passedCheck;
  }

  /** Reads `/supported`, retrying every `retryMs` while it cannot be reached, then checks the networks. */
  async run(retryMs = SUPPORTED_RETRY_MS, signal?: AbortSignal): Promise<void> {
    const url = this.connection.config.facilitatorUrl;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.connection.reread();
        break;
      } catch {
        if (attempt === 1 || attempt % 10 === 0)
          this.logger.warn(`x402: waiting for the facilitator at ${url} (/supported unreachable)`);
        await pause(retryMs, signal);
        if (signal?.aborted) throw new Error(`x402: stopped waiting for the facilitator at ${url}`);
      }
    }
    const missing = this.connection.unsupported();
    if (missing.length > 0) {
      const names = missing.map((n) => `${n.name} (${n.network})`).join(', ');
      const them = missing.length === 1 ? 'it' : 'them';
      throw new Error(
        `x402: the facilitator at ${url} does not support ${names}: its /supported has no exact scheme there; ` +
          `use a facilitator that settles ${them}, or set X402_<NET>_PAY_TO=none to stop offering ${them}`,
      );
    }
    this.passedCheck = true;
  }

  /** A check still waiting gives up. */
  onApplicationShutdown(): void {
    this.stopping.abort();
  }
}

/** Waits `ms`, or less if `signal` aborts; holds no process open. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    timer.unref();
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
