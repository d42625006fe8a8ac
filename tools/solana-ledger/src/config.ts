import { readConfig } from '@appcat/config';
import { DEFAULT_SLOT_MS } from './ledger.js';
import { DEFAULT_SOLANA_LEDGER_PORT } from './solana-ledger.js';

export interface SolanaLedgerConfig {
  host: string;
  port: number;
  slotMs: number;
}

export function readSolanaLedgerConfig(env: Record<string, string | undefined> = process.env): SolanaLedgerConfig {
  return readConfig(
    (e) => ({
      host: e.string('SOLANA_LEDGER_HOST', '127.0.0.1'),
      port: e.int('SOLANA_LEDGER_PORT', DEFAULT_SOLANA_LEDGER_PORT, { min: 0, max: 65535 }),
      slotMs: e.int('SOLANA_LEDGER_SLOT_MS', DEFAULT_SLOT_MS, { min: 0, max: 60_000 }),
    }),
    env,
  );
}
