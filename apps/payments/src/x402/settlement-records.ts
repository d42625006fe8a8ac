import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type pg from 'pg';

/** One settled x402 payment and the request it paid for (a row of `x402_settlements`). */
export interface SettlementRecord {
  /** PaymentLock identity: (network, payer, nonce) for EVM, the transaction hash for Solana. */
  paymentId: string;
  network: string;
  transaction: string;
  payer: string;
  amount: bigint;
  purpose: 'call' | 'topup';
  route: string;
  requestId: string;
  resourceUrl: string;
  settledAtMs: number;
}

/** Records waiting for Postgres (it was down when they settled); drained by every replica. */
export const PENDING_SETTLEMENTS_STREAM = 'x402:settlements:pending';
const DRAIN_INTERVAL_MS = 1_000;
const DRAIN_BATCH = 200;
/** A record must not hold up the delivery it paid for when Postgres hangs instead of refusing. */
const INSERT_TIMEOUT_MS = 2_000;

const INSERT = `
INSERT INTO x402_settlements (payment_id, network, transaction, payer, amount_micros, purpose, route, request_id, resource_url, settled_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, timestamptz 'epoch' + $10::bigint * interval '1 millisecond')
ON CONFLICT (network, transaction) DO NOTHING`;

/**
 * Writes each x402 settlement to Postgres before its delivery. When Postgres is down the record goes to
 * a Redis stream instead and is moved to Postgres once it is back (the insert is idempotent on the
 * transaction, so a record moved twice is stored once). Only if both stores fail at that moment is the
 * record lost, and it is then logged in full as an error line (it holds no secret) for an operator.
 */
export class SettlementRecords {
  private readonly logger = new Logger('SettlementRecords');
  private timer: NodeJS.Timeout | null = null;
  private draining: Promise<void> | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly redis: Redis,
  ) {}

  async record(record: SettlementRecord): Promise<void> {
    try {
      await withTimeout(this.insert(record), INSERT_TIMEOUT_MS);
      return;
    } catch (error) {
      this.logger.warn(`settlement ${record.network}:${record.transaction} queued for Postgres: ${describe(error)}`);
    }
    try {
      await this.redis.xadd(PENDING_SETTLEMENTS_STREAM, '*', 'record', serialise(record));
    } catch (error) {
      this.logger.error(`settlement not recorded (Postgres and Redis failed): ${serialise(record)}: ${describe(error)}`);
    }
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (!this.draining) this.draining = this.drainPending().catch(() => undefined).finally(() => (this.draining = null)) as Promise<void>;
    }, DRAIN_INTERVAL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.draining;
  }

  /** Moves queued records to Postgres; returns how many were moved. Safe to run on several replicas at once. */
  async drainPending(): Promise<number> {
    let moved = 0;
    for (;;) {
      const entries = (await this.redis.xrange(PENDING_SETTLEMENTS_STREAM, '-', '+', 'COUNT', DRAIN_BATCH)) as [string, string[]][];
      if (entries.length === 0) return moved;
      for (const [id, fields] of entries) {
        const record = parse(fields);
        if (record) await this.insert(record);
        else this.logger.error(`malformed pending settlement ${id} dropped: ${fields.join(' ')}`);
        await this.redis.xdel(PENDING_SETTLEMENTS_STREAM, id);
        moved++;
      }
    }
  }

  /** How many records wait in Redis for Postgres. */
  async pendingCount(): Promise<number> {
    return this.redis.xlen(PENDING_SETTLEMENTS_STREAM);
  }

  private async insert(record: SettlementRecord): Promise<void> {
    await this.pool.query(INSERT, [
      record.paymentId,
      record.network,
      record.transaction,
      record.payer,
      record.amount.toString(),
      record.purpose,
      record.route,
      record.requestId,
      record.resourceUrl,
      String(record.settledAtMs),
    ]);
  }
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
      'paymentId', 'network', 'transaction', 'payer', 'amount', 'purpose', 'route', 'requestId', 'resourceUrl',
    ].map(text);
    if (!paymentId || !network || !transaction || payer === null || !amount || !/^\d+$/.test(amount) || (purpose !== 'call' && purpose !== 'topup')) return null;
    if (route === null || requestId === null || resourceUrl === null || typeof raw.settledAtMs !== 'number') return null;
    return { paymentId, network, transaction, payer, amount: BigInt(amount), purpose, route, requestId, resourceUrl, settledAtMs: raw.settledAtMs };
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
