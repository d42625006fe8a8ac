import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';
import { PG_POOL } from '../payments-tokens.js';

/** One settled x402 payment and the request it paid for (a row of `x402_settlements`). */
export interface SettlementRecord {
  /** PaymentLock identity: (network, payer, nonce) for EVM, the payer's transaction signature for Solana. */
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

/** One statement for a whole batch; a settlement already stored (written twice) is skipped. */
const INSERT = `
INSERT INTO x402_settlements (payment_id, network, transaction, payer, amount_micros, purpose, route, request_id, resource_url, settled_at)
SELECT payment_id, network, transaction, payer, amount_micros, purpose, route, request_id, resource_url,
       timestamptz 'epoch' + settled_at_ms * interval '1 millisecond'
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[], $10::bigint[])
  AS r(payment_id, network, transaction, payer, amount_micros, purpose, route, request_id, resource_url, settled_at_ms)
ON CONFLICT (network, transaction) DO NOTHING`;

const SETTLEMENTS_SQL = `
SELECT
  (SELECT count(*) FROM x402_settlements WHERE purpose = 'call')::int AS calls,
  (SELECT count(*) FROM x402_settlements WHERE purpose = 'topup')::int AS top_ups,
  ((SELECT count(*) FROM x402_settlements) - (SELECT count(DISTINCT (network, transaction)) FROM x402_settlements)
   + (SELECT count(*) FROM x402_settlements) - (SELECT count(DISTINCT payment_id) FROM x402_settlements))::int AS duplicates,
  (SELECT count(*) FROM (SELECT request_id FROM x402_settlements GROUP BY 1 HAVING count(*) > 1) r)::int AS shared_request_ids,
  ARRAY(SELECT t.external_ref FROM top_ups t WHERE t.method = 'x402' AND NOT EXISTS (
          SELECT 1 FROM x402_settlements s WHERE s.purpose = 'topup' AND t.external_ref = 'x402:' || s.network || ':' || s.transaction)
        ORDER BY 1 LIMIT 100) AS top_ups_without_settlement,
  ARRAY(SELECT s.network || ':' || s.transaction FROM x402_settlements s WHERE s.purpose = 'topup' AND NOT EXISTS (
          SELECT 1 FROM top_ups t WHERE t.external_ref = 'x402:' || s.network || ':' || s.transaction)
        ORDER BY 1 LIMIT 100) AS settlements_without_top_up`;

/** What reconciliation checks of x402_settlements, beside the top-ups they paid for. */
export interface SettlementCounts {
  calls: number;
  top_ups: number;
  duplicates: number;
  shared_request_ids: number;
  top_ups_without_settlement: string[];
  settlements_without_top_up: string[];
}

/** x402_settlements in Postgres. Raw SQL, as LedgerRepository's: whole batches in one unnest statement. */
@Injectable()
export class SettlementRepository {
  constructor(@Inject(PG_POOL) private readonly pool: pg.Pool) {}

  async insert(records: SettlementRecord[]): Promise<void> {
    const column = <T>(pick: (record: SettlementRecord) => T) => records.map(pick);
    await this.pool.query(INSERT, [
      column((r) => r.paymentId),
      column((r) => r.network),
      column((r) => r.transaction),
      column((r) => r.payer),
      column((r) => r.amount.toString()),
      column((r) => r.purpose),
      column((r) => r.route),
      column((r) => r.requestId),
      column((r) => r.resourceUrl),
      column((r) => String(r.settledAtMs)),
    ]);
  }

  async reconciliationCounts(): Promise<SettlementCounts> {
    return (await this.pool.query<SettlementCounts>(SETTLEMENTS_SQL)).rows[0];
  }
}
