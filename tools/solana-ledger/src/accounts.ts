import { type Address, address } from '@solana/kit';

/**
 * Fixed dev keypairs of the local Solana ledger. Each secret key is sha256("appcat local solana
 * ledger: <role>") as an ed25519 seed, written as the 64-byte base58 secret key that Phantom and
 * `solana-keygen` export. They are published here: they hold value only on this ledger and must never
 * be used elsewhere.
 */
export interface SolanaDevAccount {
  address: Address;
  /** 64 bytes (seed then public key), base58. */
  secretKey: string;
}

export interface SolanaLedgerAccounts {
  /** Signs x402 payments; holds 1,000 test USDC and no SOL (the facilitator pays the fees). */
  payer: SolanaDevAccount;
  /** The dev facilitator's fee payer: co-signs each settlement and pays its fee; holds SOL. */
  feePayer: SolanaDevAccount;
  /** Receives payments: the `payTo` of local Solana offers. Its USDC token account exists from the start. */
  payTo: SolanaDevAccount;
}

export const SOLANA_DEV_ACCOUNTS: SolanaLedgerAccounts = {
  payer: {
    address: address('moDephKuRdJLLUJQBjreLrA8j2dxWevnrGa5PMWyxcT'),
    secretKey: 'J9QuVzw66G1i7cpADabQamgf8XUDs9WJYXje7xyt2dpTvHQG5cBU6y19BaWh59wAGPcc5JpXuiGiSGTLZRYp13R',
  },
  feePayer: {
    address: address('EGf34g6uRUtkYz4uUrAQeRgJX2SrhA59qgewa4EhhvW3'),
    secretKey: 'HQ4po2dzBf8DFrwZAunUnmMRgBaGw7nqZoesLktN95Hf4LvJPiWegjcLKjTKPNdWaYD7SvhyJKmAFNNo9MLQ4Lf',
  },
  payTo: {
    address: address('3YQzpW2SNGU13XRrDjbahJPGv8ttJTWyqEuH55hmh2ad'),
    secretKey: 'K6uLx1yvtj7nAM2w8VWACc9n9cpt2ZNMhm7pjZQMdi7btDE89HnTkyKeR2HyanFB8S55AFEQaQPtKtiEyaNwHjX',
  },
};

/** Solana mainnet: its CAIP-2 id is `solana:` and the first 32 characters of this genesis hash. */
export const SOLANA_MAINNET_GENESIS_HASH = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';
export const SOLANA_MAINNET_NETWORK = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' as const;

/** Circle's USDC mint on Solana mainnet (6 decimals, classic SPL Token program). */
export const USDC_MINT = address('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
export const USDC_DECIMALS = 6;
export const TOKEN_PROGRAM = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
export const ASSOCIATED_TOKEN_PROGRAM = address('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');
