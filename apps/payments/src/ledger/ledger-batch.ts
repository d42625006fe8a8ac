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
