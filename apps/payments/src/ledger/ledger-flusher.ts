import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import type { LedgerConfig } from '../config/payments-config.js';
import { applyLedgerBatch, type LedgerEntry, parseLedgerEntry } from './ledger-batch.js';

type StreamEntry = [id: string, fields: string[] | null];
type XReadGroupReply = [stream: string, entries: StreamEntry[]][] | null;
type XAutoClaimReply = [next: string, entries: StreamEntry[], deleted?: string[]];

/** Consumers that have had nothing pending for this long are forgotten by the group. */
const FORGET_IDLE_CONSUMER_MS = 3_600_000;
const RETRY_DELAY_MS = 500;
const SHUTDOWN_DRAIN_MS = 5_000;

/**
 * Writes the debits of the Redis ledger stream behind to Postgres. Every replica runs one, all in one
 * consumer group, so each entry is delivered to one of them; an entry is acknowledged and deleted only
 * after the statement that recorded it committed, and recording is idempotent, so a crash anywhere means
 * at worst a replay that changes nothing. Entries a dead replica had read are reclaimed after
 * `claimIdleMs`. If Redis lost the group (restart without data, FLUSHALL), it is created again.
 */
export class LedgerFlusher {
  private readonly logger = new Logger('LedgerFlusher');
  private running: Promise<void> | null = null;
  private stopping = false;
  /** Read this consumer's own unacknowledged entries before new ones (after a failure or at start). */
  private retryOwnPending = true;
  private nextReclaimAt = 0;
  /** Ends the current linger early (at stop). */
  private wake: (() => void) | null = null;
  /** Observes each batch written to Postgres: how many debits, and the oldest one's charge time (ms). */
  onFlushed?: (count: number, oldestChargedAtMs: number) => void;

  constructor(
    /** A connection of its own: XREADGROUP BLOCK holds it while waiting. */
    private readonly redis: Redis,
    private readonly pool: pg.Pool,
    private readonly config: LedgerConfig,
  ) {}

  start(): void {
    if (this.running) return;
    this.stopping = false;
    this.running = this.loop();
  }

  /** Stops reading new entries and writes out whatever can be drained within a few seconds. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.running;
    this.running = null;
    const deadline = Date.now() + SHUTDOWN_DRAIN_MS;
    try {
      while (Date.now() < deadline) {
        const ownPending = this.retryOwnPending;
        if ((await this.flushOnce({ block: false })) === 0 && !ownPending) break;
      }
    } catch (error) {
      this.logger.warn(`ledger not fully drained at shutdown; another replica will take it over: ${describe(error)}`);
    }
  }

  async ensureGroup(): Promise<void> {
    try {
      // From the stream's first entry: after Redis lost everything, debits may be in a new stream already.
      await this.redis.xgroup('CREATE', this.config.stream, this.config.group, '0', 'MKSTREAM');
    } catch (error) {
      if (!String((error as Error).message).startsWith('BUSYGROUP')) throw error;
    }
  }

  /**
   * Reads one batch (this consumer's unacknowledged entries first, then new ones) and records it.
   * Returns how many stream entries were handled.
   */
  async flushOnce(options: { block: boolean }): Promise<number> {
    const ownPending = this.retryOwnPending;
    const args: (string | number)[] = ['GROUP', this.config.group, this.config.consumer, 'COUNT', this.config.batchSize];
    if (options.block && !ownPending) args.push('BLOCK', this.config.blockMs);
    args.push('STREAMS', this.config.stream, ownPending ? '0' : '>');
    let reply: XReadGroupReply;
    try {
      reply = (await this.redis.call('XREADGROUP', ...args)) as XReadGroupReply;
    } catch (error) {
      if (!isNoGroup(error)) throw error;
      await this.ensureGroup();
      this.retryOwnPending = false;
      return 0;
    }
    const entries = reply?.[0]?.[1] ?? [];
    this.retryOwnPending = ownPending && entries.length > 0;
    await this.record(entries);
    return entries.length;
  }

  /** Takes over entries that another consumer read but did not acknowledge for `claimIdleMs`. */
  async reclaim(): Promise<number> {
    let cursor = '0-0';
    let handled = 0;
    do {
      const [next, entries] = (await this.redis.call(
        'XAUTOCLAIM',
        this.config.stream,
        this.config.group,
        this.config.consumer,
        this.config.claimIdleMs,
        cursor,
        'COUNT',
        this.config.batchSize,
      )) as XAutoClaimReply;
      if (entries.length > 0) this.logger.warn(`reclaimed ${entries.length} ledger entries from an unresponsive consumer`);
      await this.record(entries);
      handled += entries.length;
      cursor = next;
    } while (cursor !== '0-0' && !this.stopping);
    await this.forgetIdleConsumers();
    return handled;
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      try {
        if (Date.now() >= this.nextReclaimAt) {
          this.nextReclaimAt = Date.now() + Math.max(1_000, Math.floor(this.config.claimIdleMs / 2));
          await this.reclaim();
        }
        const started = Date.now();
        const handled = await this.flushOnce({ block: true });
        // A full batch means a backlog: read on at once. Otherwise let debits gather for the rest of the
        // interval, so steady traffic makes a few large transactions rather than many small ones.
        const linger = started + this.config.flushIntervalMs - Date.now();
        if (handled > 0 && handled < this.config.batchSize && linger > 0 && !this.stopping) await this.linger(linger);
      } catch (error) {
        if (isNoGroup(error)) {
          await this.ensureGroup().catch(() => undefined);
          continue;
        }
        this.logger.error(`ledger flush failed, retrying: ${describe(error)}`);
        this.retryOwnPending = true;
        await sleep(RETRY_DELAY_MS);
      }
    }
  }

  /** Records the entries in Postgres, then acknowledges and deletes them from the stream. */
  private async record(entries: StreamEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const debits: LedgerEntry[] = [];
    const malformed: StreamEntry[] = [];
    const vanished: string[] = [];
    for (const [id, fields] of entries) {
      // An entry deleted from the stream but still pending comes back without fields: it was recorded.
      if (fields === null) vanished.push(id);
      else {
        const debit = parseLedgerEntry(id, fields);
        if (debit) debits.push(debit);
        else malformed.push([id, fields]);
      }
    }
    if (debits.length > 0) {
      const applied = await applyLedgerBatch(this.pool, debits);
      if (applied.orphans > 0) this.logger.error(`${applied.orphans} ledger debits name keys unknown to Postgres; skipped`);
      const oldest = debits.reduce((min, debit) => (debit.chargedAtMs < min ? debit.chargedAtMs : min), debits[0].chargedAtMs);
      this.onFlushed?.(debits.length, Number(oldest));
    }
    const deadLetters = this.redis.multi();
    for (const [id, fields] of malformed) deadLetters.xadd(`${this.config.stream}:dead`, '*', 'source', id, ...(fields ?? []));
    if (malformed.length > 0) {
      this.logger.error(`${malformed.length} malformed ledger entries moved to ${this.config.stream}:dead`);
      await deadLetters.exec();
    }
    const ids = entries.map(([id]) => id);
    await this.redis.multi().xack(this.config.stream, this.config.group, ...ids).xdel(this.config.stream, ...ids).exec();
  }

  private linger(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake?.(), ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }

  private async forgetIdleConsumers(): Promise<void> {
    const consumers = (await this.redis.call('XINFO', 'CONSUMERS', this.config.stream, this.config.group)) as unknown[][];
    for (const info of consumers) {
      const fields = new Map<string, unknown>();
      for (let i = 0; i + 1 < info.length; i += 2) fields.set(String(info[i]), info[i + 1]);
      const name = String(fields.get('name'));
      if (name !== this.config.consumer && Number(fields.get('pending')) === 0 && Number(fields.get('idle')) > FORGET_IDLE_CONSUMER_MS) {
        await this.redis.xgroup('DELCONSUMER', this.config.stream, this.config.group, name);
      }
    }
  }
}

/** The group is gone (Redis restarted empty), or was deleted with the stream while we waited on it. */
function isNoGroup(error: unknown): boolean {
  const message = String((error as Error)?.message ?? '');
  return message.startsWith('NOGROUP') || message.startsWith('UNBLOCKED');
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
