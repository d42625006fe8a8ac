import { Logger } from '@nestjs/common';
import type { RedisClient } from '@appcat/redis';
import { type SettlementRecord, SettlementRepository } from '../persistence/settlement-repository.js';
import type { LockState } from './payment-lock.js';
import { type PaymentKeys, X402Keyspace } from './x402-keyspace.js';

export type { SettlementRecord };

/** How often each replica looks for records no replica wrote to Postgres itself (it died, or Postgres was down). */
const DRAIN_INTERVAL_MS = 1_000;
/** The timer's drain leaves younger records to the replica that queued them, which writes them within milliseconds. */
const DRAIN_AFTER_MS = 1_000;
const BATCH = 200;
/** Records this replica holds in memory to write itself. */
const MAX_UNWRITTEN = 10 * BATCH;
/** A record must not hold up the delivery it paid for, nor the writer, when Postgres hangs instead of refusing. */
const INSERT_TIMEOUT_MS = 2_000;

/**
 * KEYS: the payment's pending stream, its lock (one hash slot, X402Keyspace). ARGV: the record's JSON,
 * the lock's new value ('' leaves it alone) and its time to live in ms. One script, where a MULTI/EXEC
 * cost ioredis a Pipeline object and a promise per command on every paid call (bench profile).
 */
const RECORD_SCRIPT = `
if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3]) end
return redis.call('XADD', KEYS[1], '*', 'record', ARGV[1])
`;

interface RecordCommands {
  settlementRecord(
    pending: string,
    lock: string,
    record: string,
    lockValue: string,
    lockTtlMs: number,
  ): Promise<string>;
}

/** A record in a pending stream (X402Keyspace: one per shard), by its stream entry id. */
interface QueuedRecord {
  stream: string;
  id: string;
  record: SettlementRecord;
}

/**
 * Records each x402 settlement before its delivery, for reconciliation, at the cost of one Redis round
 * trip on the call's path: the record is added to its shard's pending stream (X402Keyspace) by the same
 * script that marks the payment used. Records Postgres refuses (a constraint or a value it cannot
 * take) or that cannot be read go to the shard's rejected stream, kept for an operator and counted by
 * reconciliation. Right after, off the call's path, the replica writes it to Postgres from memory and
 * takes it off the stream, so neither a Redis loss nor a crash of the replica alone loses it: the
 * stream's copy is moved by any replica's drain (every DRAIN_INTERVAL_MS, at shutdown and whenever
 * reconciliation runs) if the replica did not write it. The insert is idempotent on the transaction, so
 * a record written twice is stored once. When Redis fails, the record is written to Postgres before the
 * reply instead; only if both fail is it lost, and it is then logged in full as an error line (it holds
 * no secret) for an operator.
 */
export class SettlementRecords {
  private readonly logger = new Logger('SettlementRecords');
  private timer: NodeJS.Timeout | null = null;
  private draining: Promise<unknown> | null = null;
  /** Records in the streams this replica is about to write to Postgres itself. */
  private readonly unwritten: QueuedRecord[] = [];
  private writing: Promise<void> | null = null;

  private readonly redis: RedisClient & RecordCommands;

  constructor(
    private readonly repository: SettlementRepository,
    redis: RedisClient,
    /** Where records and payment locks live. */
    readonly keyspace: X402Keyspace,
  ) {
    redis.defineCommand('settlementRecord', { numberOfKeys: 2, lua: RECORD_SCRIPT });
    this.redis = redis as RedisClient & RecordCommands;
  }

  /**
   * Records a settlement; resolves once Redis or Postgres holds it. `keys` are the payment's (given
   * when the caller has them already); with `lock`, its lock is set to that state by the same script,
   * so the mark costs no round trip of its own.
   */
  async record(
    record: SettlementRecord,
    keys: PaymentKeys = this.keyspace.keysOf(record.paymentId),
    lock?: LockState,
  ): Promise<void> {
    let id: string;
    const stream = keys.pending;
    try {
      id = await this.redis.settlementRecord(stream, keys.lock, serialise(record), lock?.value ?? '', lock?.ttlMs ?? 0);
    } catch (error) {
      this.logger.warn(
        `settlement ${record.network}:${record.transaction} written to Postgres directly (Redis failed): ${describe(error)}`,
      );
      try {
        await withTimeout(this.repository.insert([record]), INSERT_TIMEOUT_MS);
      } catch (insertError) {
        this.logger.error(
          `settlement not recorded (Redis and Postgres failed): ${serialise(record)}: ${describe(insertError)}`,
        );
      }
      return;
    }
    // Beyond this (Postgres slow or down) the stream's copy is enough: the drain moves it.
    if (this.unwritten.length < MAX_UNWRITTEN) this.unwritten.push({ stream, id, record });
    // After the reply has gone out: the reply is published on the setImmediate queued after this one
    // (PublishBatch), so the write waits a loop turn more. Records queued meanwhile join the same statement.
    this.writing ??= new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve))).then(() =>
      this.writeUnwritten(),
    );
  }

  /** Resolves once the records this replica queued so far are written to Postgres (or left in the stream for the drain). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.drainInBackground(), DRAIN_INTERVAL_MS);
    this.timer.unref();
  }

  /** Stops the timer and writes what is queued to Postgres (what is left is moved by another replica or the next start). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all([this.flush(), this.draining]);
    await this.drainPending().catch((error: unknown) =>
      this.logger.warn(`settlements not drained at shutdown: ${describe(error)}`),
    );
  }

  /**
   * Moves records from every pending stream to Postgres (only those queued at least `olderThanMs` ago);
   * returns how many left the streams. Safe to run on several replicas at once. Each shard is drained on
   * its own: one whose primary is failing over does not hold the others up (its error is rethrown after).
   */
  async drainPending(olderThanMs = 0): Promise<number> {
    const results = await Promise.allSettled(
      this.keyspace.drainedStreams.map((stream) => this.drainStream(stream, olderThanMs)),
    );
    const failure = results.find((result) => result.status === 'rejected');
    if (failure) throw failure.reason;
    return results.reduce((sum, result) => sum + (result.status === 'fulfilled' ? result.value : 0), 0);
  }

  /** How many records wait in Redis for Postgres (every shard). */
  async pendingCount(): Promise<number> {
    return this.sumLengths(this.keyspace.drainedStreams);
  }

  /** How many records Postgres refused or could not be read (kept in the shards' rejected streams for an operator). */
  async rejectedCount(): Promise<number> {
    return this.sumLengths(this.keyspace.drainedStreams.map((stream) => X402Keyspace.rejectedOf(stream)));
  }

  private async drainStream(stream: string, olderThanMs: number): Promise<number> {
    let moved = 0;
    for (;;) {
      const until = olderThanMs > 0 ? String(Date.now() - olderThanMs) : '+';
      const entries = (await this.redis.xrange(stream, '-', until, 'COUNT', BATCH)) as [string, string[]][];
      if (entries.length === 0) return moved;
      const queued: QueuedRecord[] = [];
      for (const [id, fields] of entries) {
        const record = parse(fields);
        if (record) {
          queued.push({ stream, id, record });
          continue;
        }
        const rejected = X402Keyspace.rejectedOf(stream);
        this.logger.error(`malformed pending settlement ${id} kept in ${rejected}: ${fields.join(' ')}`);
        await this.redis.xadd(rejected, '*', ...fields, 'error', 'malformed');
      }
      if (queued.length > 0) await this.insertOrSetAside(queued);
      await this.redis.xdel(stream, ...entries.map(([id]) => id));
      moved += entries.length;
    }
  }

  private async sumLengths(streams: readonly string[]): Promise<number> {
    // One command each, sent together (a Redis Cluster client groups them per node).
    const lengths = await Promise.all(streams.map((stream) => this.redis.xlen(stream)));
    return lengths.reduce((sum, length) => sum + length, 0);
  }

  /** Writes the records this replica queued; those Postgres does not take now stay in the stream for the drain. */
  private async writeUnwritten(): Promise<void> {
    try {
      while (this.unwritten.length > 0) {
        const batch = this.unwritten.splice(0, BATCH);
        try {
          await withTimeout(this.insertOrSetAside(batch), INSERT_TIMEOUT_MS);
        } catch (error) {
          this.logger.warn(
            `${batch.length + this.unwritten.length} settlement records wait in Redis for Postgres: ${describe(error)}`,
          );
          this.unwritten.length = 0;
          return;
        }
        // If this fails (Redis lost), the drain writes them again, which changes nothing.
        const idsByStream = new Map<string, string[]>();
        for (const entry of batch) idsByStream.set(entry.stream, [...(idsByStream.get(entry.stream) ?? []), entry.id]);
        await Promise.all(
          [...idsByStream].map(([stream, ids]) => this.redis.xdel(stream, ...ids).catch(() => undefined)),
        );
      }
    } finally {
      this.writing = null;
    }
  }

  private drainInBackground(): void {
    if (this.draining) return;
    this.draining = this.drainPending(DRAIN_AFTER_MS)
      .catch((error: unknown) => this.logger.warn(`settlements wait in Redis: ${describe(error)}`))
      .finally(() => (this.draining = null));
  }

  /**
   * Inserts a batch; if Postgres refuses it for what a record holds (not for being unreachable), inserts
   * one by one and sets the records it refuses aside (in their stream's rejected stream), so one bad
   * record cannot hold up the others.
   */
  private async insertOrSetAside(queued: QueuedRecord[]): Promise<void> {
    try {
      await this.repository.insert(queued.map((entry) => entry.record));
      return;
    } catch (error) {
      if (!refusedForContent(error)) throw error;
    }
    for (const { stream, record } of queued) {
      try {
        await this.repository.insert([record]);
      } catch (error) {
        if (!refusedForContent(error)) throw error;
        const rejected = X402Keyspace.rejectedOf(stream);
        this.logger.error(
          `settlement refused by Postgres, kept in ${rejected}: ${serialise(record)}: ${describe(error)}`,
        );
        await this.redis.xadd(rejected, '*', 'record', serialise(record), 'error', describe(error));
      }
    }
  }
}

/** SQLSTATE classes 22 (data exception) and 23 (integrity constraint violation): retrying will not help. */
function refusedForContent(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}

function serialise(record: SettlementRecord): string {
  return JSON.stringify({ ...record, amount: record.amount.toString() });
}

function parse(fields: string[]): SettlementRecord | null {
  const index = fields.indexOf('record');
  if (index < 0 || index + 1 >= fields.length) return null;
  try {
    const raw = JSON.parse(fields[index + 1]) as Record<string, unknown>;
    const text = (name: string) => (typeof raw[name] === 'string' ? (raw[name] as string) : null);
    const [paymentId, network, transaction, payer, amount, purpose, route, requestId, resourceUrl] = [
      'paymentId',
      'network',
      'transaction',
      'payer',
      'amount',
      'purpose',
      'route',
      'requestId',
      'resourceUrl',
    ].map(text);
    if (
      !paymentId ||
      !network ||
      !transaction ||
      payer === null ||
      !amount ||
      !/^\d+$/.test(amount) ||
      (purpose !== 'call' && purpose !== 'topup')
    )
      return null;
    if (route === null || requestId === null || resourceUrl === null || typeof raw.settledAtMs !== 'number')
      return null;
    return {
      paymentId,
      network,
      transaction,
      payer,
      amount: BigInt(amount),
      purpose,
      route,
      requestId,
      resourceUrl,
      settledAtMs: raw.settledAtMs,
    };
  } catch {
    return null;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
