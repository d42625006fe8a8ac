import {
  type AdminReconcileReply,
  formatUsd,
  type KeyReconciliation,
  parseMicros,
  reconcileVerdict,
} from '@appcat/contracts';
import { ExitCode } from './exit-codes.js';

/** Signed µUSD as USD with six decimals. */
const usd = (micros: string): string =>
  micros.startsWith('-') ? `-${formatUsd(parseMicros(micros.slice(1)))}` : formatUsd(parseMicros(micros));

const VERDICT_EXIT_CODES = { exact: ExitCode.Ok, pending: ExitCode.Pending, differs: ExitCode.Mismatch } as const;

export function reconcileExitCode(reply: AdminReconcileReply): ExitCode {
  return VERDICT_EXIT_CODES[reconcileVerdict(reply)];
}

export function reconcileJson(reply: AdminReconcileReply) {
  const key = (row: KeyReconciliation) => ({
    ...row,
    toppedUp: usd(row.toppedUp),
    topUpRows: usd(row.topUpRows),
    spent: usd(row.spent),
    debitRows: usd(row.debitRows),
    pending: usd(row.pending),
    held: usd(row.held),
    expectedBalance: usd(row.expectedBalance),
    redisBalance: row.redisBalance === null ? null : usd(row.redisBalance),
    difference: usd(row.difference),
  });
  return {
    exact: reply.exact,
    keysChecked: reply.keysChecked,
    ledgerBacklog: reply.ledgerBacklog,
    openHolds: reply.openHolds,
    totals: {
      toppedUp: usd(reply.totals.toppedUp),
      spent: usd(reply.totals.spent),
      debits: reply.totals.debits,
      pending: usd(reply.totals.pending),
      held: usd(reply.totals.held),
      redisBalance: usd(reply.totals.redisBalance),
    },
    differences: reply.differences.map(key),
    settlements: reply.settlements,
    checkedAt: reply.checkedAt,
  };
}

export function reconcileText(reply: AdminReconcileReply): string {
  const t = reply.totals;
  const s = reply.settlements;
  const lines = [
    `${reply.exact ? 'EXACT' : 'DIFFERENCES'}  ${reply.keysChecked} keys checked at ${reply.checkedAt}`,
    `topped up USD ${usd(t.toppedUp)}   spent USD ${usd(t.spent)} (${t.debits} debits)   unflushed USD ${usd(t.pending)} (${reply.ledgerBacklog} debits)   held USD ${usd(t.held)} (${reply.openHolds} calls under way)   live balances USD ${usd(t.redisBalance)}`,
    `x402 settlements: ${s.calls} calls, ${s.topUps} top-ups, ${s.queued} queued for Postgres, ${s.duplicates} duplicates` +
      (s.sharedRequestIds > 0
        ? `, ${s.sharedRequestIds} request ids named by several (callers reused x-request-id)`
        : ''),
  ];
  for (const ref of s.topUpsWithoutSettlement) lines.push(`  top-up credited without a settlement record: ${ref}`);
  for (const ref of s.settlementsWithoutTopUp) lines.push(`  top-up paid but not credited: ${ref}`);
  if (reply.differences.length > 0) {
    lines.push(
      '',
      `${'PREFIX'.padEnd(14)}${'STATUS'.padEnd(19)}${'TOPPED UP'.padStart(16)}${'SPENT'.padStart(16)}${'DEBITS'.padStart(9)}${'UNFLUSHED'.padStart(13)}${'EXPECTED'.padStart(16)}${'REDIS'.padStart(16)}${'DIFFERENCE'.padStart(14)}`,
    );
    for (const key of reply.differences) {
      lines.push(
        `${key.prefix.padEnd(14)}${key.status.padEnd(19)}${usd(key.toppedUp).padStart(16)}${usd(key.spent).padStart(16)}${String(key.debits).padStart(9)}${usd(key.pending).padStart(13)}${usd(key.expectedBalance).padStart(16)}${(key.redisBalance === null ? '-' : usd(key.redisBalance)).padStart(16)}${usd(key.difference).padStart(14)}`,
      );
      if (key.status === 'postgres_mismatch') {
        lines.push(
          `  ${key.id}: top_ups rows sum to USD ${usd(key.topUpRows)}, credit_debits rows to USD ${usd(key.debitRows)}`,
        );
      }
    }
  }
  return lines.join('\n');
}
