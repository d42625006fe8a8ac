import { attachContext, sampledContext } from '@appcat/ops';
import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';
import type { LedgerEntry } from '../ledger/ledger-batch.js';
import { PG_POOL } from '../payments-tokens.js';

/**
 * Writes a batch of debits and adds them to the keys' spent totals in ONE statement, so either both
 * happen or neither. Only debits actually inserted count towards spent_micros: a debit id already in
 * credit_debits (a replay after a crash between this commit and the stream acknowledgement) changes
 * nothing. Keys are locked in id order so concurrent flushers cannot deadlock on them. Debits of keys
 * that do not exist are skipped rather than failing the batch forever; the caller is told how many.
 */
const APPLY_BATCH = `
WITH batch AS (
  SELECT DISTINCT ON (id) id, api_key_id, amount_micros, route, charged_at_ms
  FROM unnest($1::text[], $2::uuid[], $3::bigint[], $4::text[], $5::bigint[])
    AS b(id, api_key_id, amount_micros, route, charged_at_ms)
  ORDER BY id
), inserted AS (
  INSERT INTO credit_debits (id, api_key_id, amount_micros, route, charged_at)
  SELECT b.id, b.api_key_id, b.amount_micros, b.route, timestamptz 'epoch' + b.charged_at_ms * interval '1 millisecond'
  FROM batch b
  WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = b.api_key_id)
  ON CONFLICT (id) DO NOTHING
  RETURNING api_key_id, amount_micros
), totals AS (
  SELECT api_key_id, sum(amount_micros)::bigint AS amount, count(*) AS debits FROM inserted GROUP BY api_key_id
), locked AS MATERIALIZED (
  SELECT k.id FROM api_keys k WHERE k.id IN (SELECT api_key_id FROM totals) ORDER BY k.id FOR NO KEY UPDATE
), updated AS (
  UPDATE api_keys k SET spent_micros = k.spent_micros + t.amount
  FROM totals t JOIN locked l ON l.id = t.api_key_id
  WHERE k.id = t.api_key_id
  RETURNING k.id
)
SELECT
  (SELECT coalesce(sum(debits), 0) FROM totals)::bigint AS inserted,
  (SELECT count(*) FROM updated)::bigint AS keys,
  (SELECT count(*) FROM batch b WHERE NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.id = b.api_key_id))::bigint AS orphans`;

/** A key's running totals beside the rows they sum, as Postgres holds them. */
export interface KeyTotals {
  id: string;
  prefix: string;
  key_hash: string;
  topped_up_micros: string;
  spent_micros: string;
  top_up_rows: string;
  debit_rows: string;
  debits: string;
  off_price_debits: string;
}

/** One SQL statement, so the running totals and the rows they sum come from one snapshot. */
const KEYS_SQL = `
SELECT k.id, k.prefix, k.key_hash, k.topped_up_micros::text, k.spent_micros::text,
       coalesce(t.s, 0)::text AS top_up_rows, coalesce(d.s, 0)::text AS debit_rows,
       coalesce(d.n, 0)::text AS debits, coalesce(d.off, 0)::text AS off_price_debits
FROM api_keys k
LEFT JOIN (SELECT api_key_id, sum(amount_micros) AS s FROM top_ups GROUP BY 1) t ON t.api_key_id = k.id
LEFT JOIN (SELECT api_key_id, sum(amount_micros) AS s, count(*) AS n, count(*) FILTER (WHERE amount_micros <> $1) AS off
           FROM credit_debits GROUP BY 1) d ON d.api_key_id = k.id
ORDER BY k.created_at, k.id`;

export interface AppliedBatch {
  /** Debits new to Postgres. */
  inserted: number;
  /** Debits naming a key Postgres does not have. */
  orphans: number;
}

/**
 * The spent side of the books in Postgres: credit_debits and the keys' spent totals. Raw SQL, not Prisma:
 * each operation is one statement (CTEs, unnest, row locks in id order) that Prisma's query API cannot say.
 */
@Injectable()
export class LedgerRepository {
  constructor(@Inject(PG_POOL) private readonly pool: pg.Pool) {}

  async applyBatch(entries: LedgerEntry[]): Promise<AppliedBatch> {
    if (entries.length === 0) return { inserted: 0, orphans: 0 };
    const query: pg.QueryConfig = {
      text: APPLY_BATCH,
      values: [
        entries.map((e) => e.debitId),
        entries.map((e) => e.keyId),
        entries.map((e) => e.amount.toString()),
        entries.map((e) => e.route),
        entries.map((e) => e.chargedAtMs.toString()),
      ],
    };
    // Its statement's span belongs to the caller's (the ledger flush's) trace: the pool sends it a turn later.
    attachContext(query, sampledContext());
    const { rows } = await this.pool.query<{ inserted: string; orphans: string }>(query);
    return { inserted: Number(rows[0].inserted), orphans: Number(rows[0].orphans) };
  }

  /** Every key's totals and the sums of its rows; a debit other than `pricePerCall` counts as off-price. */
  async keyTotals(pricePerCall: bigint): Promise<KeyTotals[]> {
    return (await this.pool.query<KeyTotals>(KEYS_SQL, [pricePerCall.toString()])).rows;
  }
}
