import {
  type AdminKeyCreated,
  type AdminKeyDetails,
  type AdminKeyList,
  type AdminKeySummary,
  formatUsd,
  parseMicros,
} from '@appcat/contracts';

/** Amounts come from payments as µUSD strings and are shown as USD with six decimals, exactly. */
const usd = (micros: string): string => formatUsd(parseMicros(micros));

export function createdJson(created: AdminKeyCreated) {
  return { key: created.key, id: created.id, prefix: created.prefix, balance: usd(created.balance) };
}

function summaryJson(key: AdminKeySummary) {
  return {
    id: key.id,
    prefix: key.prefix,
    status: key.status,
    createdAt: key.createdAt,
    revokedAt: key.revokedAt,
    toppedUp: usd(key.toppedUp),
    spent: usd(key.spent),
    balance: usd(key.balance),
  };
}

export function detailsJson(key: AdminKeyDetails) {
  return {
    ...summaryJson(key),
    topUps: key.topUps.map((topUp) => ({ ...topUp, amount: usd(topUp.amount) })),
  };
}

export function listJson(list: AdminKeyList) {
  return { keys: list.keys.map(summaryJson) };
}

export const STORE_KEY_WARNING =
  'Store this key now: it is shown only this once. Only its hash is kept, so it cannot be recovered, only revoked.';

export function createdText(created: AdminKeyCreated): string {
  return [
    created.key,
    '',
    `id       ${created.id}`,
    `prefix   ${created.prefix}`,
    `balance  USD ${usd(created.balance)}`,
  ].join('\n');
}

export function detailsText(key: AdminKeyDetails): string {
  const lines = [
    `key        ${key.prefix}…`,
    `id         ${key.id}`,
    `status     ${key.status}`,
    `created    ${key.createdAt}`,
    `revoked    ${key.revokedAt ?? '-'}`,
    `topped up  USD ${usd(key.toppedUp)}`,
    `spent      USD ${usd(key.spent)}  (as recorded in Postgres; lags the balance by about a second)`,
    `balance    USD ${usd(key.balance)}`,
    `top-ups    ${key.topUps.length === 0 ? 'none' : ''}`,
  ];
  for (const topUp of key.topUps)
    lines.push(
      `  ${topUp.createdAt}  ${topUp.method.padEnd(5)}  USD ${usd(topUp.amount).padStart(14)}  ${topUp.reference}`,
    );
  return lines.join('\n');
}

export function listText(list: AdminKeyList): string {
  if (list.keys.length === 0) return 'no keys';
  const header = `${'PREFIX'.padEnd(14)}${'STATUS'.padEnd(9)}${'BALANCE (USD)'.padStart(18)}${'TOPPED UP'.padStart(18)}${'SPENT'.padStart(18)}  ID`;
  const rows = list.keys.map(
    (key) =>
      `${key.prefix.padEnd(14)}${key.status.padEnd(9)}${usd(key.balance).padStart(18)}${usd(key.toppedUp).padStart(18)}${usd(key.spent).padStart(18)}  ${key.id}`,
  );
  return [header, ...rows].join('\n');
}
