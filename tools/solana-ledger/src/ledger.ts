import {
  AccountState,
  findAssociatedTokenPda,
  getMintDecoder,
  getMintEncoder,
  getTokenDecoder,
  getTokenEncoder,
} from '@solana-program/token';
import {
  type Address,
  type Blockhash,
  type EncodedAccount,
  type Transaction,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  lamports,
} from '@solana/kit';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';
import { SOLANA_DEV_ACCOUNTS, TOKEN_PROGRAM, USDC_DECIMALS, USDC_MINT } from './accounts.js';
import { type RpcTransactionError, toRpcTransactionError } from './transaction-errors.js';

/** How many slots a blockhash stays usable after the slot it was issued in: mainnet's 150. */
export const DEFAULT_BLOCKHASH_VALIDITY_SLOTS = 150;
/** One slot every 400 ms, as on mainnet: a blockhash lives about a minute. */
export const DEFAULT_SLOT_MS = 400;
/** 1,000 USDC in atomic units (6 decimals). */
export const DEFAULT_PAYER_FUNDING = 1_000_000_000n;
/** 1,000 SOL for the facilitator's fee payer. */
export const DEFAULT_FEE_PAYER_LAMPORTS = 1_000_000_000_000n;

/** A JSON-RPC error as the ledger answers it (the validator's codes and messages). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export interface SignatureStatus {
  slot: bigint;
  err: RpcTransactionError | null;
}

export interface SimulationResult {
  err: RpcTransactionError | null;
  logs: string[];
  unitsConsumed: bigint;
}

export interface LedgerOptions {
  /** Slots pass on a timer, one each slotMs; 0 leaves them to advanceSlots() alone. Default 400. */
  slotMs?: number;
  /** Default 150, as on mainnet. */
  blockhashValiditySlots?: number;
  /** Test USDC given to the demo payer at start, atomic units. Default 1,000 USDC. */
  payerFunding?: bigint;
}

const SIGNATURE_FAILURE = 'SignatureFailure';
const decodeTransaction = (bytes: Uint8Array) => getTransactionDecoder().decode(bytes);
const base58 = getBase58Decoder();

/**
 * The SVM (litesvm, in process) plus what a validator adds around it and the x402 flow relies on:
 * slots and blockhashes that expire, a status per processed signature, and refusal of a signature
 * already processed. Every processed transaction is final at once (one node, no forks), so each
 * commitment level sees the same state.
 *
 * litesvm knows only its latest blockhash; the validity window is kept here (its own check is off):
 * each slot issues a new blockhash, valid while the slot is at most `issued + validity`.
 */
export class Ledger {
  private readonly svm: LiteSVM;
  private readonly validity: bigint;
  private slotNow: bigint;
  private readonly lastValidByBlockhash = new Map<string, bigint>();
  private readonly statuses = new Map<string, SignatureStatus>();

  /** Starts the SVM with USDC's mint, the funded demo payer and fee payer, and payTo's token account. */
  static async create(options: LedgerOptions = {}): Promise<Ledger> {
    const ledger = new Ledger(options);
    await ledger.setUsdc(SOLANA_DEV_ACCOUNTS.payer.address, options.payerFunding ?? DEFAULT_PAYER_FUNDING);
    // x402's exact scheme transfers to payTo's associated token account and does not create it.
    await ledger.setUsdc(SOLANA_DEV_ACCOUNTS.payTo.address, 0n);
    ledger.startClock(options.slotMs ?? DEFAULT_SLOT_MS);
    return ledger;
  }

  private timer?: NodeJS.Timeout;

  private constructor(options: LedgerOptions) {
    this.validity = BigInt(options.blockhashValiditySlots ?? DEFAULT_BLOCKHASH_VALIDITY_SLOTS);
    this.svm = new LiteSVM().withBlockhashCheck(false).withSigverify(true);
    this.slotNow = this.svm.getClock().slot;
    this.lastValidByBlockhash.set(this.svm.latestBlockhash(), this.slotNow + this.validity);

    const mint = getMintEncoder().encode({
      mintAuthority: null,
      supply: 0n,
      decimals: USDC_DECIMALS,
      isInitialized: true,
      freezeAuthority: null,
    });
    this.svm.setAccount(this.encodedAccount(USDC_MINT, TOKEN_PROGRAM, new Uint8Array(mint)));
    this.svm.airdrop(SOLANA_DEV_ACCOUNTS.feePayer.address, lamports(DEFAULT_FEE_PAYER_LAMPORTS));
  }

  private startClock(slotMs: number): void {
    if (slotMs <= 0) return;
    this.timer = setInterval(() => this.advanceSlots(1), slotMs);
    this.timer.unref();
  }

  get slot(): bigint {
    return this.slotNow;
  }

  /** Block height equals the slot: no slot is ever skipped here. */
  get latestBlockhash(): { blockhash: Blockhash; lastValidBlockHeight: bigint } {
    const blockhash = this.svm.latestBlockhash() as Blockhash;
    return { blockhash, lastValidBlockHeight: this.lastValidByBlockhash.get(blockhash) ?? this.slotNow };
  }

  /** Moves time forward; blockhashes older than the validity window stop being accepted. */
  advanceSlots(count: number): void {
    if (count <= 0) return;
    this.slotNow += BigInt(count);
    this.svm.warpToSlot(this.slotNow);
    this.svm.expireBlockhash();
    this.lastValidByBlockhash.set(this.svm.latestBlockhash(), this.slotNow + this.validity);
    for (const [blockhash, lastValid] of this.lastValidByBlockhash) {
      if (lastValid < this.slotNow) this.lastValidByBlockhash.delete(blockhash);
    }
  }

  isBlockhashValid(blockhash: string): boolean {
    const lastValid = this.lastValidByBlockhash.get(blockhash);
    return lastValid !== undefined && lastValid >= this.slotNow;
  }

  getAccount(address: Address): EncodedAccount | null {
    const account = this.svm.getAccount(address);
    return account.exists ? account : null;
  }

  minimumBalanceForRentExemption(space: bigint): bigint {
    return this.svm.minimumBalanceForRentExemption(space);
  }

  async usdcAccount(owner: Address): Promise<Address> {
    const [ata] = await findAssociatedTokenPda({ owner, mint: USDC_MINT, tokenProgram: TOKEN_PROGRAM });
    return ata;
  }

  /** The owner's test USDC in atomic units (0 when it has no token account). */
  async usdcBalance(owner: Address): Promise<bigint> {
    const account = this.getAccount(await this.usdcAccount(owner));
    return account ? getTokenDecoder().decode(account.data).amount : 0n;
  }

  /** Adds test USDC to the owner's associated token account, creating it if needed; returns the new balance. */
  async mintUsdc(owner: Address, amount: bigint): Promise<bigint> {
    const balance = (await this.usdcBalance(owner)) + amount;
    await this.setUsdc(owner, balance);
    return balance;
  }

  signatureStatus(signature: string): SignatureStatus | null {
    return this.statuses.get(signature) ?? null;
  }

  /** Runs a transaction without recording it, as simulateTransaction does. */
  simulate(wire: Uint8Array, options: { sigVerify: boolean; replaceRecentBlockhash: boolean }): SimulationResult {
    const transaction = this.decode(wire);
    if (!options.replaceRecentBlockhash && !this.isBlockhashValid(blockhashOf(transaction))) {
      return { err: 'BlockhashNotFound', logs: [], unitsConsumed: 0n };
    }
    this.svm.withSigverify(options.sigVerify);
    try {
      const result = this.svm.simulateTransaction(transaction);
      const meta = result.meta();
      return {
        err: result instanceof FailedTransactionMetadata ? toRpcTransactionError(result.err()) : null,
        logs: meta.logs(),
        unitsConsumed: meta.computeUnitsConsumed(),
      };
    } catch {
      // kit refuses to hand litesvm a transaction with a missing signature when sigverify is on.
      return { err: SIGNATURE_FAILURE, logs: [], unitsConsumed: 0n };
    } finally {
      this.svm.withSigverify(true);
    }
  }

  /**
   * Processes a transaction as an RPC node's sendTransaction does: signatures are always verified, a
   * signature already processed or an expired blockhash is refused, a transaction that fails while
   * executing lands (its fee is charged, its status holds the error) and its signature is returned.
   */
  send(wire: Uint8Array, options: { skipPreflight: boolean }): string {
    const transaction = this.decode(wire);
    const signature = firstSignature(transaction);
    if (this.statuses.has(signature)) {
      throw preflightError('This transaction has already been processed', 'AlreadyProcessed');
    }
    if (!this.isBlockhashValid(blockhashOf(transaction))) {
      throw preflightError('Blockhash not found', 'BlockhashNotFound');
    }
    if (!options.skipPreflight) {
      const simulated = this.simulate(wire, { sigVerify: true, replaceRecentBlockhash: false });
      if (simulated.err !== null) {
        if (simulated.err === SIGNATURE_FAILURE) throw signatureError();
        throw preflightError(JSON.stringify(simulated.err), simulated.err, simulated.logs);
      }
    }
    let result;
    try {
      result = this.svm.sendTransaction(transaction);
    } catch {
      throw signatureError();
    }
    if (result instanceof FailedTransactionMetadata) {
      const err = toRpcTransactionError(result.err());
      if (err === SIGNATURE_FAILURE) throw signatureError();
      // Errors found before execution (fee payer, accounts, sanitising) never reach a block.
      if (typeof err === 'string') throw preflightError(err, err, result.meta().logs());
      this.statuses.set(signature, { slot: this.slotNow, err });
    } else {
      this.statuses.set(signature, { slot: this.slotNow, err: null });
    }
    return signature;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private decode(wire: Uint8Array): Transaction {
    try {
      return decodeTransaction(wire);
    } catch (error) {
      throw new RpcError(-32602, `invalid transaction: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private encodedAccount(address: Address, owner: Address, data: Uint8Array): EncodedAccount {
    return {
      address,
      data,
      executable: false,
      lamports: lamports(this.svm.minimumBalanceForRentExemption(BigInt(data.length))),
      programAddress: owner,
      space: BigInt(data.length),
    };
  }

  private async setUsdc(owner: Address, amount: bigint): Promise<void> {
    const ata = await this.usdcAccount(owner);
    const data = getTokenEncoder().encode({
      mint: USDC_MINT,
      owner,
      amount,
      delegate: null,
      state: AccountState.Initialized,
      isNative: null,
      delegatedAmount: 0n,
      closeAuthority: null,
    });
    this.svm.setAccount(this.encodedAccount(ata, TOKEN_PROGRAM, new Uint8Array(data)));
    this.refreshSupply();
  }

  /** Keeps the mint's supply equal to the sum of its token accounts, as minting would. */
  private refreshSupply(): void {
    const mint = this.getAccount(USDC_MINT);
    if (!mint) return;
    let supply = 0n;
    for (const account of this.svm.getProgramAccounts(TOKEN_PROGRAM)) {
      if (account.data.length !== 165) continue;
      const token = getTokenDecoder().decode(account.data);
      if (token.mint === USDC_MINT) supply += token.amount;
    }
    const decoded = getMintDecoder().decode(mint.data);
    const data = getMintEncoder().encode({ ...decoded, supply });
    this.svm.setAccount({ ...mint, data: new Uint8Array(data) });
  }
}

function blockhashOf(transaction: Transaction): string {
  return getCompiledTransactionMessageDecoder().decode(transaction.messageBytes).lifetimeToken;
}

function firstSignature(transaction: Transaction): string {
  const [first] = Object.values(transaction.signatures);
  if (!first) throw signatureError();
  return base58.decode(first);
}

function signatureError(): RpcError {
  return new RpcError(-32003, 'Transaction signature verification failure');
}

function preflightError(reason: string, err: RpcTransactionError, logs: string[] = []): RpcError {
  return new RpcError(-32002, `Transaction simulation failed: ${reason}`, {
    err,
    logs,
    accounts: null,
    unitsConsumed: 0,
    returnData: null,
  });
}
