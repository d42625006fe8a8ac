import { readSolanaLedgerConfig } from './config.js';
import { startSolanaLedger } from './solana-ledger.js';

const config = readSolanaLedgerConfig();
const ledger = await startSolanaLedger(config);
const { payer, feePayer, payTo } = ledger.accounts;
const usdc = (await ledger.usdcBalance(payer.address)) / 1_000_000n;
process.stdout.write(
  [
    `local Solana ledger ${ledger.network} on ${config.host}:${new URL(ledger.url).port} (${ledger.url})`,
    `  test USDC at the mainnet mint ${ledger.usdcMint}`,
    `  Solana demo payer ${payer.address} holds ${usdc} USDC and no SOL`,
    `  Solana demo payer secret key ${payer.secretKey} (base58; local use only)`,
    `  Solana fee payer ${feePayer.address}, payTo ${payTo.address}`,
    '',
  ].join('\n'),
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void ledger.close().then(() => process.exit(0)));
}
