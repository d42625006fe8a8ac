import { Logger } from '@nestjs/common';
import type { RedisOptions } from 'ioredis';
import type { LedgerConfig } from '../config/payments-config.js';
import { CreditKeyspace } from '../persistence/credit-keyspace.js';
import { isCluster, type RedisClient } from '@appcat/redis';
import type { LedgerRepository } from '../persistence/ledger-repository.js';
import { type LedgerEntry, parseLedgerEntry } from './ledger-batch.js';
import { OUTCOME, withSpan } from '@appcat/ops';

type StreamEntry = [id: string, fields: string[] | null];
type XReadGroupReply = [stream: string, entries: StreamEntry[]][] | null;
type XAutoClaimReply = [next: string, entries: StreamEntry[], deleted?: string[]];

/** Consumers that have had nothing pending for this long are forgotten by the group. */
const FORGET_IDLE_CONSUMER_MS = 3_600_000;
const RETRY_DELAY_MS = 500;
const SHUTDOWN_DRAIN_MS = 5_000;
/** On a Redis Cluster, how often an idle flusher looks for new debits at least, ms (it cannot block there). */
const CLUSTER_POLL_MS = 50;

/**
 * Writes the debits of the Redis ledger's streams (its shards) behind to Postgres. Every replica runs
 * one, all in one consumer group per stream, so each entry is delivered to one of them; an entry is acknowledged and deleted only
 * after the statement that recorded it committed, and recording is idempotent, so a crash anywhere means
 * at worst a replay that changes nothing. Entries a dead replica had read are reclaimed after
 * `claimIdleMs`. If Redis lost the group (restart without data, FLUSHALL), it is created again.
 */
export class LedgerFlusher {
  private readonly logger = new Logger('LedgerFlusher');
  private running: Promise<void> | null = null;
  private stopping = false;
  /** Streams whose unacknowledged entries this consumer reads before new ones (after a failure or at start). */
  private readonly ownPending: Set<string>;
  private nextReclaimAt = 0;
  /** Ends the current linger early (at stop). */
  private wake: (() => void) | null = null;
  /** Observes each batch written to Postgres: how many debits, and the oldest one's charge time (ms). */
  onFlushed?: (count: number, oldestChargedAtMs: number) => void;

  constructor(
    /** A connection of its own: XREADGROUP BLOCK holds it while waiting. */
    private readonly redis: RedisClient,
    private readonly ledger: LedgerRepository,
    private readonly config: LedgerConfig,
    /** The ledger's shards (CreditKeyspace.streams), all drained by this flusher. */
    private readonly streams: readonly string[],
  ) {
    this.ownPending = new Set(streams);
  }

  /**
   * What the flusher's own connection needs. A read whose answer is lost with its connection fails
   * rather than being sent again after the reconnection (ioredis's default, `maxRetriesPerRequest` ≥ 1):
   * the first read may have run, leaving its entries pending under this consumer, and a second `>` read
   * would skip them until `claimIdleMs` passed; failing, the loop re-reads its own pending entries at once.
   * The timeout leaves room for a blocking read.
   */
  static connectionOptions(config: LedgerConfig, commandTimeoutMs: number): RedisOptions {
    return { maxRetriesPerRequest: 0, commandTimeout: config.blockMs + commandTimeoutMs };
  }

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
        const ownPending = this.ownPending.size > 0;
        if ((await this.flushOnce({ block: false })) === 0 && !ownPending) break;
      }
    } catch (error) {
      this.logger.warn(`ledger not fully drained at shutdown; another replica will take it over: ${describe(error)}`);
    }
  }

  async ensureGroup(streams: readonly string[] = this.streams): Promise<void> {
    await Promise.all(
      streams.map(async (stream) => {
        try {
          // From the stream's first entry: after Redis lost everything, debits may be in a new stream already.
          await this.redis.xgroup('CREATE', stream, this.config.group, '0', 'MKSTREAM');
        } catch (error) {
          if (!String((error as Error).message).startsWith('BUSYGROUP')) throw error;
        }
      }),
    );
  }

  /**
   * Reads one batch per shard (this consumer's unacknowledged entries first, then new ones) and records
   * it. Returns how many stream entries were handled. One Redis serves every shard in one XREADGROUP that
   * blocks until any has debits; on a Redis Cluster the shards live on different primaries, so each is
   * read on its own, without blocking (a blocked command would hold the node's one connection), and a
   * shard whose primary is failing over does not hold the others up.
   */
  async flushOnce(options: { block: boolean }): Promise<number> {
    if (!isCluster(this.redis)) return this.flushStreams(this.streams, options.block);
    const results = await Promise.allSettled(this.streams.map((stream) => this.flushStreams([stream], false)));
    let handled = 0;
    for (const result of results) if (result.status === 'fulfilled') handled += result.value;
    const failure = results.find((result) => result.status === 'rejected');
    if (failure) throw failure.reason;
    if (handled === 0 && options.block && this.ownPending.size === 0 && !this.stopping) {
      await this.linger(Math.min(this.config.blockMs, Math.max(CLUSTER_POLL_MS, this.config.flushIntervalMs)));
    }
    return handled;
  }

  /** Takes over entries that another consumer read but did not acknowledge for `claimIdleMs`. */
  async reclaim(): Promise<number> {
    let handled = 0;
    for (const stream of this.streams) {
      let cursor = '0-0';
      do {
        const [next, entries] = (await this.redis.call(
          'XAUTOCLAIM',
          stream,
          this.config.group,
          this.config.consumer,
          this.config.claimIdleMs,
          cursor,
          'COUNT',
          this.config.batchSize,
        )) as XAutoClaimReply;
        if (entries.length > 0)
          this.logger.warn(`reclaimed ${entries.length} ledger entries of ${stream} from an unresponsive consumer`);
        await this.record([[stream, entries]]);
        handled += entries.length;
        cursor = next;
      } while (cursor !== '0-0' && !this.stopping);
      await this.forgetIdleConsumers(stream);
    }
    return handled;
  }

  private async flushStreams(streams: readonly string[], block: boolean): Promise<number> {
    const ids = streams.map((stream) => (this.ownPending.has(stream) ? '0' : '>'));
    const args: (string | number)[] = [
      'GROUP',
      this.config.group,
      this.config.consumer,
      'COUNT',
      this.config.batchSize,
    ];
    if (block && ids.every((id) => id === '>')) args.push('BLOCK', this.config.blockMs);
    args.push('STREAMS', ...streams, ...ids);
    let reply: XReadGroupReply;
    try {
      reply = (await this.redis.call('XREADGROUP', ...args)) as XReadGroupReply;
    } catch (error) {
      if (!isNoGroup(error)) throw error;
      await this.ensureGroup(streams);
      for (const stream of streams) this.ownPending.delete(stream);
      return 0;
    }
    const read = new Map(reply ?? []);
    const batches: [string, StreamEntry[]][] = streams.map((stream) => [stream, read.get(stream) ?? []]);
    // Own pending entries are read until none is left; then new ones.
    batches.forEach(
      ([stream, entries], index) => ids[index] === '0' && entries.length === 0 && this.ownPending.delete(stream),
    );
    const handled = batches.reduce((sum, [, entries]) => sum + entries.length, 0);
    // A flush that moved debits is a trace of its own (Postgres's insert, Redis's acknowledgements).
    if (handled > 0)
      await withSpan(
        'ledger.flush',
        { 'appcat.ledger.entries': handled },
        async (span) => {
          await this.record(batches);
          span.set({ [OUTCOME]: 'ok' });
        },
        { root: true },
      );
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
        for (const stream of this.streams) this.ownPending.add(stream);
        await sleep(RETRY_DELAY_MS);
      }
    }
  }

  /**
   * Records the entries of one or more shards in Postgres in one statement, then acknowledges and
   * deletes them from their streams.
   */
  private async record(batches: [stream: string, entries: StreamEntry[]][]): Promise<void> {
    const debits: LedgerEntry[] = [];
    const malformed: [stream: string, entry: StreamEntry][] = [];
    for (const [stream, entries] of batches) {
      for (const [id, fields] of entries) {
        // An entry deleted from the stream but still pending comes back without fields: it was recorded.
        if (fields === null) continue;
        const debit = parseLedgerEntry(id, fields);
        if (debit) debits.push(debit);
        else malformed.push([stream, [id, fields]]);
      }
    }
    if (debits.length > 0) {
      const applied = await this.ledger.applyBatch(debits);
      if (applied.orphans > 0)
        this.logger.error(`${applied.orphans} ledger debits name keys unknown to Postgres; skipped`);
      const oldest = debits.reduce(
        (min, debit) => (debit.chargedAtMs < min ? debit.chargedAtMs : min),
        debits[0].chargedAtMs,
      );
      this.onFlushed?.(debits.length, Number(oldest));
    }
    for (const [stream, [id, fields]] of malformed) {
      const deadLetters = CreditKeyspace.deadLettersOf(stream);
      this.logger.error(`malformed ledger entry ${id} moved to ${deadLetters}`);
      await this.redis.xadd(deadLetters, '*', 'source', id, ...(fields ?? []));
    }
    await Promise.all(
      batches
        .filter(([, entries]) => entries.length > 0)
        .map(([stream, entries]) => {
          const ids = entries.map(([id]) => id);
          // One stream per transaction: on a Redis Cluster a transaction stays in one slot.
          return this.redis
            .multi()
            .xack(stream, this.config.group, ...ids)
            .xdel(stream, ...ids)
            .exec();
        }),
    );
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

  private async forgetIdleConsumers(stream: string): Promise<void> {
    const consumers = (await this.redis.call('XINFO', 'CONSUMERS', stream, this.config.group)) as unknown[][];
    for (const info of consumers) {
      const fields = new Map<string, unknown>();
      for (let i = 0; i + 1 < info.length; i += 2) fields.set(String(info[i]), info[i + 1]);
      const name = String(fields.get('name'));
      if (
        name !== this.config.consumer &&
        Number(fields.get('pending')) === 0 &&
        Number(fields.get('idle')) > FORGET_IDLE_CONSUMER_MS
      ) {
        await this.redis.xgroup('DELCONSUMER', stream, this.config.group, name);
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
