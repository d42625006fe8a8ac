import { PRICE_PER_CALL_MICROS } from '@appcat/contracts';
import { REFERENCE_IDS } from '@appcat/store-emulator';
import type { ChaosCluster } from './cluster.js';

export interface DrainReport {
  /** "<calls> calls on a key worth <worth> over <gateways> gateways: 200×…, 402×…" */
  summary: string;
  violations: string[];
}

/**
 * Concurrent debits on one key across every gateway and payments replica, all sent at once so that each
 * gateway coalesces them into batches: exactly as many calls are delivered as the key is worth, the
 * rest are refused 402, the balance ends at zero, and Postgres records exactly the delivered debits.
 */
export async function drainOneKey(cluster: ChaosCluster, worth: number, calls: number): Promise<DrainReport> {
  const violations: string[] = [];
  const key = await cluster.createKey(BigInt(worth) * PRICE_PER_CALL_MICROS);
  const statuses = await Promise.all(
    Array.from({ length: calls }, async (_, i) => {
      const url = `${cluster.gatewayUrls[i % cluster.gatewayUrls.length]}/api/apps/${REFERENCE_IDS.app}`;
      try {
        const response = await fetch(url, {
          headers: { authorization: `Bearer ${key.key}` },
          signal: AbortSignal.timeout(30_000),
        });
        await response.arrayBuffer();
        return response.status;
      } catch {
        return 'conn' as const;
      }
    }),
  );
  const counts = new Map<string, number>();
  for (const status of statuses) counts.set(String(status), (counts.get(String(status)) ?? 0) + 1);
  const delivered = counts.get('200') ?? 0;
  const summary = `${calls} calls on a key worth ${worth} over ${cluster.gatewayUrls.length} gateways: ${[...counts].map(([s, n]) => `${s}×${n}`).join(' ')}`;
  if (delivered !== worth) violations.push(`drain: ${delivered} calls delivered on a key worth ${worth}`);
  if (delivered + (counts.get('402') ?? 0) !== calls)
    violations.push(`drain: answers other than 200 and 402 (${summary})`);

  const reply = await cluster.reconcile(20_000);
  const row = reply.differences.find((difference) => difference.id === key.id);
  if (row) violations.push(`drain: reconcile ${row.status} for the drained key (difference ${row.difference} µUSD)`);
  const { rows } = await cluster.db.query<{ n: string }>(
    'SELECT count(*) AS n FROM credit_debits WHERE api_key_id = $1',
    [key.id],
  );
  if (Number(rows[0].n) !== delivered)
    violations.push(`drain: ${rows[0].n} debits recorded for ${delivered} delivered calls`);
  const balance = await fetch(`${cluster.gatewayUrls[0]}/api/credits/balance`, {
    headers: { authorization: `Bearer ${key.key}` },
  });
  const body = (await balance.json()) as { data?: { balance?: string } };
  if (body.data?.balance !== '0.000000') violations.push(`drain: balance left ${JSON.stringify(body.data)}`);
  return { summary, violations };
}
