import type pg from 'pg';

/** One debit as written to the ledger stream by the debit script. */
export interface LedgerEntry {
  /** The stream entry id, acknowledged once the debit is in Postgres. */
  streamId: string;
  debitId: string;
  keyId: string;
  amount: bigint;
  route: string;
  chargedAtMs: bigint;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const POSITIVE_INTEGER = /^[1-9]\d{0,18}$/;
const MILLISECONDS = /^\d{1,15}$/;

/** Reads a stream entry's flat field list; null when it is not a well-formed debit. */
export function parseLedgerEntry(streamId: string, fields: string[] | null): LedgerEntry | null {
  if (!fields) return null;
  const values = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) values.set(fields[i], fields[i + 1]);
  const debitId = values.get('debit');
  const keyId = values.get('key');
  const amount = values.get('amount');
  const route = values.get('route');
  const at = values.get('at');
  if (
    !debitId ||
    !keyId ||
    !UUID.test(keyId) ||
    !amount ||
    !POSITIVE_INTEGER.test(amount) ||
    route === undefined ||
    !at ||
    !MILLISECONDS.test(at)
  ) {
    return null;
  }
  return { streamId, debitId, keyId, amount: BigInt(amount), route, chargedAtMs: BigInt(at) };
}

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

export interface AppliedBatch {
  /** Debits new to Postgres. */
  inserted: number;
  /** Debits naming a key Postgres does not have. */
  orphans: number;
}

export async function applyLedgerBatch(pool: pg.Pool, entries: LedgerEntry[]): Promise<AppliedBatch> {
  if (entries.length === 0) return { inserted: 0, orphans: 0 };
  const { rows } = await pool.query<{ inserted: string; orphans: string }>(APPLY_BATCH, [
    entries.map((e) => e.debitId),
    entries.map((e) => e.keyId),
    entries.map((e) => e.amount.toString()),
    entries.map((e) => e.route),
    entries.map((e) => e.chargedAtMs.toString()),
  ]);
  return { inserted: Number(rows[0].inserted), orphans: Number(rows[0].orphans) };
}
