import { x402Facilitator } from '@x402/core/facilitator';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { ExactSvmScheme as ExactSvmClientScheme } from '@x402/svm/exact/client';
import { ExactSvmScheme as ExactSvmFacilitatorScheme } from '@x402/svm/exact/facilitator';
import { toFacilitatorSvmSigner } from '@x402/svm';
import {
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  mainnet,
} from '@solana/kit';
import { SOLANA_DEV_ACCOUNTS, type SolanaLedger, startSolanaLedger } from '../src/index.js';

const PRICE = 3000n;
const keyPair = (secretKey: string) =>
  createKeyPairSignerFromBytes(new Uint8Array(getBase58Encoder().encode(secretKey)));

describe('local Solana ledger', () => {
  let ledger: SolanaLedger;
  let facilitator: x402Facilitator;
  let client: ExactSvmClientScheme;
  let requirements: PaymentRequirements;

  beforeAll(async () => {
    // Slots move only when a test moves them, so blockhash expiry is decided by the test, not the clock.
    ledger = await startSolanaLedger({ port: 0, slotMs: 0 });
    const feePayer = await keyPair(SOLANA_DEV_ACCOUNTS.feePayer.secretKey);
    facilitator = new x402Facilitator().register(
      ledger.network,
      new ExactSvmFacilitatorScheme(toFacilitatorSvmSigner(feePayer, { defaultRpcUrl: ledger.url })),
    );
    client = new ExactSvmClientScheme(await keyPair(SOLANA_DEV_ACCOUNTS.payer.secretKey), { rpcUrl: ledger.url });
    requirements = {
      scheme: 'exact',
      network: ledger.network,
      asset: ledger.usdcMint,
      amount: PRICE.toString(),
      payTo: SOLANA_DEV_ACCOUNTS.payTo.address,
      maxTimeoutSeconds: 60,
      extra: { feePayer: SOLANA_DEV_ACCOUNTS.feePayer.address },
    };
  });

  afterAll(() => ledger?.close());

  const pay = async (accepted: PaymentRequirements = requirements): Promise<PaymentPayload> => {
    const { payload } = await client.createPaymentPayload(2, accepted);
    return { x402Version: 2, resource: { url: 'http://local/test' }, accepted, payload };
  };

  const rpc = (method: string, params: unknown[] = []) =>
    fetch(ledger.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    }).then(
      (r) => r.json() as Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }>,
    );

  it('starts with USDC at the mainnet mint, the payer funded with USDC and no SOL, the fee payer with SOL', async () => {
    const kit = createSolanaRpc(mainnet(ledger.url));
    expect(await ledger.usdcBalance(SOLANA_DEV_ACCOUNTS.payer.address)).toBe(1_000_000_000n);
    expect((await kit.getBalance(SOLANA_DEV_ACCOUNTS.payer.address).send()).value).toBe(0n);
    expect((await kit.getBalance(SOLANA_DEV_ACCOUNTS.feePayer.address).send()).value).toBeGreaterThan(1_000_000_000n);
    const mint = await kit.getAccountInfo(ledger.usdcMint, { encoding: 'jsonParsed' }).send();
    expect(mint.value?.owner).toBe('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
    expect(mint.value?.data).toMatchObject({ parsed: { type: 'mint', info: { decimals: 6, supply: '1000000000' } } });
    expect(await kit.getGenesisHash().send()).toMatch(/^5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/);
  });

  it('settles a payment signed by the official client: payTo gains exactly the amount, the payer loses it', async () => {
    const before = await ledger.usdcBalance(SOLANA_DEV_ACCOUNTS.payTo.address);
    const payment = await pay();
    expect(await facilitator.verify(payment, requirements)).toMatchObject({
      isValid: true,
      payer: SOLANA_DEV_ACCOUNTS.payer.address,
    });
    const settled = await facilitator.settle(payment, requirements);
    expect(settled).toMatchObject({ success: true, network: ledger.network, payer: SOLANA_DEV_ACCOUNTS.payer.address });
    expect(await ledger.usdcBalance(SOLANA_DEV_ACCOUNTS.payTo.address)).toBe(before + PRICE);

    const status = await rpc('getSignatureStatuses', [[settled.transaction]]);
    expect(status.result).toMatchObject({ value: [{ err: null, confirmationStatus: 'finalized' }] });
    // The payer paid no fee: the facilitator's fee payer did.
    expect((await rpc('getBalance', [SOLANA_DEV_ACCOUNTS.payer.address])).result).toMatchObject({ value: 0 });
  });

  it('refuses a transaction already processed, however it is sent again', async () => {
    const payment = await pay();
    const settled = await facilitator.settle(payment, requirements);
    expect(settled.success).toBe(true);
    const balance = await ledger.usdcBalance(SOLANA_DEV_ACCOUNTS.payTo.address);

    // Through the facilitator: its cache refuses the same transaction.
    expect(await facilitator.settle(payment, requirements)).toMatchObject({
      success: false,
      errorReason: 'duplicate_settlement',
    });
    // Straight to the ledger, fully signed: the signature was processed once.
    const feePayer = await keyPair(SOLANA_DEV_ACCOUNTS.feePayer.secretKey);
    const partial = getTransactionDecoder().decode(
      getBase64Encoder().encode((payment.payload as { transaction: string }).transaction),
    );
    const [signatures] = await feePayer.signTransactions([partial as never]);
    const signed = getBase64EncodedWireTransaction({
      ...partial,
      signatures: { ...partial.signatures, ...signatures },
    });
    const resent = await rpc('sendTransaction', [signed, { encoding: 'base64', skipPreflight: true }]);
    expect(resent.error).toMatchObject({ code: -32002, data: { err: 'AlreadyProcessed' } });
    expect(await ledger.usdcBalance(SOLANA_DEV_ACCOUNTS.payTo.address)).toBe(balance);
  });

  it('expires a blockhash after 150 slots: the facilitator refuses the payment and nothing moves', async () => {
    const payment = await pay();
    const { blockhash } = ((await rpc('getLatestBlockhash')).result as { value: { blockhash: string } }).value;
    ledger.advanceSlots(150);
    expect((await rpc('isBlockhashValid', [blockhash])).result).toMatchObject({ value: true });
    ledger.advanceSlots(1);
    expect((await rpc('isBlockhashValid', [blockhash])).result).toMatchObject({ value: false });

    const balance = await ledger.usdcBalance(SOLANA_DEV_ACCOUNTS.payTo.address);
    const verdict = await facilitator.verify(payment, requirements);
    expect(verdict).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_svm_transaction_simulation_failed' });
    expect(verdict.invalidMessage).toContain('BlockhashNotFound');
    expect(await facilitator.settle(payment, requirements)).toMatchObject({ success: false });
    expect(await ledger.usdcBalance(SOLANA_DEV_ACCOUNTS.payTo.address)).toBe(balance);
  });

  it('refuses a payment the payer cannot cover, in simulation', async () => {
    const tooMuch = { ...requirements, amount: 2_000_000_000n.toString() };
    const verdict = await facilitator.verify(await pay(tooMuch), tooMuch);
    expect(verdict).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_svm_transaction_simulation_failed' });
    expect(verdict.invalidMessage).toContain('InstructionError');
  });

  it('refuses a payment whose signature was tampered with', async () => {
    const payment = await pay();
    const bytes = new Uint8Array(getBase64Encoder().encode((payment.payload as { transaction: string }).transaction));
    // Wire layout: signature count, the fee payer's (empty) signature, then the payer's.
    bytes[1 + 64 + 10] ^= 0xff;
    const tampered = { ...payment, payload: { transaction: Buffer.from(bytes).toString('base64') } };
    expect(await facilitator.verify(tampered, requirements)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_svm_payload_signature_invalid',
    });
    const sent = await rpc('sendTransaction', [tampered.payload.transaction, { encoding: 'base64' }]);
    expect(sent.error).toMatchObject({ code: -32003 });
  });

  it('mints test USDC and answers unknown methods with "method not found"', async () => {
    const someone = (await keyPair(SOLANA_DEV_ACCOUNTS.payTo.secretKey)).address;
    const before = await ledger.usdcBalance(someone);
    expect(await ledger.mintUsdc(someone, 5n)).toBe(before + 5n);
    expect((await rpc('getTokenAccountBalance', [await tokenAccount(someone)])).result).toMatchObject({
      value: { amount: String(before + 5n), decimals: 6 },
    });
    expect((await rpc('getProgramAccounts', ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'])).error).toEqual({
      code: -32601,
      message: 'Method not found',
    });
  });

  const tokenAccount = async (owner: string) => {
    const { findAssociatedTokenPda } = await import('@solana-program/token');
    const [ata] = await findAssociatedTokenPda({
      owner: owner as never,
      mint: ledger.usdcMint,
      tokenProgram: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' as never,
    });
    return ata;
  };
});
