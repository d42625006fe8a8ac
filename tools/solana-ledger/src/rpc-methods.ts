import { getMintDecoder, getTokenDecoder } from '@solana-program/token';
import {
  type Address,
  type EncodedAccount,
  getBase58Decoder,
  getBase58Encoder,
  getBase64Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  isAddress,
  type ReadonlyUint8Array,
} from '@solana/kit';
import { SOLANA_MAINNET_GENESIS_HASH, TOKEN_PROGRAM } from './accounts.js';
import { type Ledger, RpcError } from './ledger.js';

/**
 * The JSON-RPC methods that @solana/kit, @x402/svm's client and its facilitator call, answered in the
 * validator's shapes. Anything else is "method not found". Every commitment level sees the same state
 * (a processed transaction is final at once), so `commitment` is accepted and otherwise ignored.
 */
export type RpcMethod = (ledger: Ledger, params: unknown[]) => unknown;

const U64_MAX = 18_446_744_073_709_551_615n;
const LAMPORTS_PER_SIGNATURE = 5_000n;

// kit's codecs are named from the string's side: a base64 *decoder* turns bytes into base64 text.
const toBase64 = (bytes: ReadonlyUint8Array) => getBase64Decoder().decode(bytes);
const fromBase64 = (text: string) => new Uint8Array(getBase64Encoder().encode(text));
const toBase58 = (bytes: ReadonlyUint8Array) => getBase58Decoder().decode(bytes);
const fromBase58 = (text: string) => new Uint8Array(getBase58Encoder().encode(text));

function context(ledger: Ledger) {
  return { slot: ledger.slot, apiVersion: '2.2.0' };
}

function config(params: unknown[], index: number): Record<string, unknown> {
  const value = params[index];
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function addressParam(params: unknown[], index: number): Address {
  const value = params[index];
  if (typeof value !== 'string' || !isAddress(value))
    throw new RpcError(-32602, `Invalid param: ${String(value)} is not an address`);
  return value;
}

function wireTransaction(params: unknown[], encoding: unknown): Uint8Array {
  const encoded = params[0];
  if (typeof encoded !== 'string') throw new RpcError(-32602, 'Invalid params: transaction must be a string');
  try {
    return encoding === 'base64' ? fromBase64(encoded) : fromBase58(encoded);
  } catch {
    throw new RpcError(-32602, `Invalid params: transaction is not ${encoding === 'base64' ? 'base64' : 'base58'}`);
  }
}

function uiAmount(amount: bigint, decimals: number) {
  const text = amount.toString().padStart(decimals + 1, '0');
  const uiAmountString = `${text.slice(0, -decimals)}.${text.slice(-decimals)}`.replace(/\.?0+$/, '');
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

/** jsonParsed for SPL Token mints and accounts, as the validator parses them; other accounts fall back to base64, as there. */
function parsedTokenData(ledger: Ledger, account: EncodedAccount): unknown {
  if (account.programAddress !== TOKEN_PROGRAM) return undefined;
  if (account.data.length === 82) {
    const mint = getMintDecoder().decode(account.data);
    return {
      program: 'spl-token',
      space: 82n,
      parsed: {
        type: 'mint',
        info: {
          decimals: mint.decimals,
          supply: mint.supply.toString(),
          isInitialized: mint.isInitialized,
          mintAuthority: mint.mintAuthority.__option === 'Some' ? mint.mintAuthority.value : null,
          freezeAuthority: mint.freezeAuthority.__option === 'Some' ? mint.freezeAuthority.value : null,
        },
      },
    };
  }
  if (account.data.length === 165) {
    const token = getTokenDecoder().decode(account.data);
    const mint = ledger.getAccount(token.mint);
    const decimals = mint ? getMintDecoder().decode(mint.data).decimals : 0;
    return {
      program: 'spl-token',
      space: 165n,
      parsed: {
        type: 'account',
        info: {
          mint: token.mint,
          owner: token.owner,
          isNative: false,
          state: 'initialized',
          tokenAmount: uiAmount(token.amount, decimals),
        },
      },
    };
  }
  return undefined;
}

function encodeAccount(ledger: Ledger, account: EncodedAccount | null, encoding: unknown): unknown {
  if (!account) return null;
  let data: unknown;
  if (encoding === 'jsonParsed') data = parsedTokenData(ledger, account);
  if (data === undefined) {
    if (encoding === 'base58') data = [toBase58(account.data), 'base58'];
    else if (encoding === undefined || encoding === 'base64' || encoding === 'jsonParsed') {
      data = [toBase64(account.data), 'base64'];
    } else throw new RpcError(-32602, `Invalid params: unsupported encoding ${String(encoding)}`);
  }
  return {
    data,
    executable: account.executable,
    lamports: account.lamports,
    owner: account.programAddress,
    rentEpoch: U64_MAX,
    space: account.space,
  };
}

export const RPC_METHODS: Record<string, RpcMethod> = {
  getHealth: () => 'ok',
  getVersion: () => ({ 'solana-core': '2.2.0', 'feature-set': 0 }),
  getGenesisHash: () => SOLANA_MAINNET_GENESIS_HASH,
  getSlot: (ledger) => ledger.slot,
  getBlockHeight: (ledger) => ledger.slot,
  getLatestBlockhash: (ledger) => ({ context: context(ledger), value: ledger.latestBlockhash }),
  isBlockhashValid: (ledger, params) => ({
    context: context(ledger),
    value: ledger.isBlockhashValid(String(params[0])),
  }),
  getMinimumBalanceForRentExemption: (ledger, params) =>
    ledger.minimumBalanceForRentExemption(BigInt(Number(params[0] ?? 0))),
  getBalance: (ledger, params) => ({
    context: context(ledger),
    value: ledger.getAccount(addressParam(params, 0))?.lamports ?? 0n,
  }),
  getAccountInfo: (ledger, params) => ({
    context: context(ledger),
    value: encodeAccount(ledger, ledger.getAccount(addressParam(params, 0)), config(params, 1).encoding),
  }),
  getMultipleAccounts: (ledger, params) => {
    const addresses = Array.isArray(params[0]) ? (params[0] as unknown[]) : [];
    const encoding = config(params, 1).encoding;
    return {
      context: context(ledger),
      value: addresses.map((_, i) => encodeAccount(ledger, ledger.getAccount(addressParam(addresses, i)), encoding)),
    };
  },
  getTokenAccountBalance: (ledger, params) => {
    const account = ledger.getAccount(addressParam(params, 0));
    const parsed = account
      ? (parsedTokenData(ledger, account) as { parsed?: { type: string; info: { tokenAmount: unknown } } })
      : undefined;
    if (parsed?.parsed?.type !== 'account') throw new RpcError(-32602, 'Invalid param: could not find account');
    return { context: context(ledger), value: parsed.parsed.info.tokenAmount };
  },
  /** 5,000 lamports per signature plus the priority fee: what the validator charges. */
  getFeeForMessage: (ledger, params) => {
    const message = fromBase64(String(params[0]));
    const compiled = getCompiledTransactionMessageDecoder().decode(message);
    const valid = ledger.isBlockhashValid(compiled.lifetimeToken);
    return {
      context: context(ledger),
      value: valid ? BigInt(compiled.header.numSignerAccounts) * LAMPORTS_PER_SIGNATURE : null,
    };
  },
  simulateTransaction: (ledger, params) => {
    const options = config(params, 1);
    const replaceRecentBlockhash = options.replaceRecentBlockhash === true;
    if (replaceRecentBlockhash && options.sigVerify === true) {
      throw new RpcError(-32602, 'Invalid params: sigVerify may not be used with replaceRecentBlockhash');
    }
    const result = ledger.simulate(wireTransaction(params, options.encoding), {
      sigVerify: options.sigVerify === true,
      replaceRecentBlockhash,
    });
    return {
      context: context(ledger),
      value: {
        err: result.err,
        logs: result.logs,
        accounts: null,
        unitsConsumed: result.unitsConsumed,
        returnData: null,
        ...(options.innerInstructions === true ? { innerInstructions: [] } : {}),
        ...(replaceRecentBlockhash ? { replacementBlockhash: ledger.latestBlockhash } : {}),
      },
    };
  },
  sendTransaction: (ledger, params) => {
    const options = config(params, 1);
    return ledger.send(wireTransaction(params, options.encoding), { skipPreflight: options.skipPreflight === true });
  },
  getSignatureStatuses: (ledger, params) => {
    const signatures = Array.isArray(params[0]) ? (params[0] as unknown[]) : [];
    return {
      context: context(ledger),
      value: signatures.map((signature) => {
        const status = ledger.signatureStatus(String(signature));
        if (!status) return null;
        return {
          slot: status.slot,
          confirmations: null,
          err: status.err,
          status: status.err === null ? { Ok: null } : { Err: status.err },
          confirmationStatus: 'finalized',
        };
      }),
    };
  },
};
