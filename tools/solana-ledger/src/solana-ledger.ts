import type { Address } from '@solana/kit';
import { SOLANA_DEV_ACCOUNTS, SOLANA_MAINNET_NETWORK, type SolanaLedgerAccounts, USDC_MINT } from './accounts.js';
import { Ledger, type LedgerOptions } from './ledger.js';
import { startRpcServer } from './rpc-server.js';

export const DEFAULT_SOLANA_LEDGER_PORT = 8899;

export interface SolanaLedgerOptions extends LedgerOptions {
  /** Default 127.0.0.1; 0.0.0.0 in a container. */
  host?: string;
  /** Default 8899 (the validator's RPC port); 0 lets the OS pick a free port (what tests want). */
  port?: number;
}

export interface SolanaLedger {
  /** JSON-RPC endpoint, as this process reaches it. */
  url: string;
  /** Solana mainnet's CAIP-2 id: the ledger stands in for mainnet. */
  network: typeof SOLANA_MAINNET_NETWORK;
  usdcMint: Address;
  accounts: SolanaLedgerAccounts;
  /** The owner's test USDC, atomic units (0 without a token account). */
  usdcBalance(owner: Address): Promise<bigint>;
  /** Gives test USDC (atomic units) to the owner's associated token account; returns the new balance. */
  mintUsdc(owner: Address, amount: bigint): Promise<bigint>;
  /** The current slot (also the block height). */
  slot(): bigint;
  /** Moves time forward by this many slots: what tests use to expire a blockhash. */
  advanceSlots(count: number): void;
  close(): Promise<void>;
}

/**
 * Starts the local Solana ledger: litesvm in this process behind a JSON-RPC server, USDC at the real
 * mainnet mint, the demo payer holding 1,000 test USDC and no SOL, the fee payer holding SOL, payTo's
 * USDC token account open.
 */
export async function startSolanaLedger(options: SolanaLedgerOptions = {}): Promise<SolanaLedger> {
  const ledger = await Ledger.create(options);
  try {
    const server = await startRpcServer(
      ledger,
      options.host ?? '127.0.0.1',
      options.port ?? DEFAULT_SOLANA_LEDGER_PORT,
    );
    return {
      url: server.url,
      network: SOLANA_MAINNET_NETWORK,
      usdcMint: USDC_MINT,
      accounts: SOLANA_DEV_ACCOUNTS,
      usdcBalance: (owner) => ledger.usdcBalance(owner),
      mintUsdc: (owner, amount) => ledger.mintUsdc(owner, amount),
      slot: () => ledger.slot,
      advanceSlots: (count) => ledger.advanceSlots(count),
      close: async () => {
        ledger.close();
        await server.close();
      },
    };
  } catch (error) {
    ledger.close();
    throw error;
  }
}
