import { PRICE_PER_CALL_MICROS } from '@appcat/contracts';
import type { ChaosCluster } from './cluster.js';
import type { Traffic } from './traffic.js';

/** Reconcile plus what only the callers know: what they were delivered and what may have been charged. */
export class Books {
  /** Per key, delivered − recorded debits accepted so far (forgiven by Redis losses). */
  private readonly forgiven = new Map<string, number>();
  /** Reconcile differences accepted so far (after a Redis loss), by key id. */
  private readonly acceptedDifferences = new Map<string, string>();

  constructor(
    private readonly cluster: ChaosCluster,
    private readonly traffic: Traffic,
  ) {}

  async check(
    phase: string,
    redisLost: boolean,
  ): Promise<{ summary: string; violations: string[]; forgivenCalls: number }> {
    const violations: string[] = [];
    const reply = await this.cluster.reconcile(20_000);
    for (const row of reply.differences) {
      const accepted = this.acceptedDifferences.get(row.id) === row.difference;
      if (row.status === 'forgiven' && (redisLost || accepted)) {
        this.acceptedDifferences.set(row.id, row.difference);
        continue;
      }
      violations.push(
        `reconcile: key ${row.prefix} ${row.status} (difference ${row.difference} µUSD, pending ${row.pending})`,
      );
    }
    const s = reply.settlements;
    if (s.duplicates || s.topUpsWithoutSettlement.length || s.settlementsWithoutTopUp.length || s.queued) {
      violations.push(`reconcile: settlements ${JSON.stringify(s)}`);
    }

    // Per key: never charged more calls than could have been charged, never delivered more than recorded
    // (except what a Redis loss forgave, which must stay within the documented ~1 s of debits).
    const { rows } = await this.cluster.db.query<{ api_key_id: string; debits: string; off_price: string }>(
      `SELECT api_key_id, count(*) AS debits, count(*) FILTER (WHERE amount_micros <> $1) AS off_price FROM credit_debits GROUP BY 1`,
      [PRICE_PER_CALL_MICROS.toString()],
    );
    const debits = new Map(rows.map((r) => [r.api_key_id, Number(r.debits)]));
    if (rows.some((r) => r.off_price !== '0')) violations.push('a debit is not one call price');
    let forgivenCalls = 0;
    for (const tally of this.traffic.tallies.values()) {
      const recorded = debits.get(tally.id) ?? 0;
      if (recorded > tally.delivered + tally.ambiguous) {
        violations.push(
          `key ${tally.id}: ${recorded} debits for ${tally.delivered} deliveries + ${tally.ambiguous} unanswered calls (a call charged twice, or charged and answered "nothing was charged")`,
        );
      }
      const deficit = tally.delivered - recorded;
      const before = this.forgiven.get(tally.id) ?? 0;
      if (deficit > before) {
        if (redisLost) {
          forgivenCalls += deficit - before;
          this.forgiven.set(tally.id, deficit);
        } else
          violations.push(
            `key ${tally.id}: ${deficit - before} delivered calls have no debit (credit lost to us without a Redis loss)`,
          );
      }
    }

    // x402: every delivery has exactly one settlement naming it; settlements beyond deliveries only where callers saw an error.
    const settled = await this.cluster.db.query<{ request_id: string; transaction: string }>(
      `SELECT request_id, transaction FROM x402_settlements WHERE purpose = 'call'`,
    );
    const byRequest = new Map<string, string[]>();
    for (const row of settled.rows)
      byRequest.set(row.request_id, [...(byRequest.get(row.request_id) ?? []), row.transaction]);
    const transactions = new Set<string>();
    for (const delivery of this.traffic.deliveries) {
      const found = byRequest.get(delivery.requestId) ?? [];
      if (found.length !== 1 || found[0] !== delivery.transaction)
        violations.push(`x402 delivery ${delivery.requestId}: settlements ${JSON.stringify(found)}`);
      if (transactions.has(delivery.transaction))
        violations.push(`x402 transaction ${delivery.transaction} delivered twice`);
      transactions.add(delivery.transaction);
    }
    if (settled.rows.length > this.traffic.deliveries.length + this.traffic.x402Ambiguous) {
      violations.push(
        `${settled.rows.length} x402 settlements for ${this.traffic.deliveries.length} deliveries and ${this.traffic.x402Ambiguous} failed calls`,
      );
    }

    const accepted =
      reply.differences.length > 0 && violations.length === 0
        ? ` (${reply.differences.length} keys forgiven by Redis losses)`
        : '';
    const summary = `${reply.exact ? 'exact' : 'differences'}${accepted}; ${reply.keysChecked} keys, ${reply.totals.debits} debits, ${s.calls} x402 call settlements (${this.traffic.deliveries.length} delivered)`;
    return { summary, violations, forgivenCalls };
  }
}
