/*
 * x402 on Solana end to end, offline: the local Solana ledger (litesvm, USDC at the real mainnet
 * mint), the dev facilitator settling there with @x402/svm, and the official client (@x402/fetch with
 * @x402/svm's exact scheme) paying the gateway. Every payment is checked on the ledger.
 */
import { SOLANA_DEV_ACCOUNTS, type SolanaLedger } from '@appcat/solana-ledger';
import { decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { x402Client } from '@x402/core/client';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { wrapFetchWithPayment } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { createKeyPairSignerFromBytes, generateKeyPairSigner, getBase58Encoder, getBase64Encoder } from '@solana/kit';
import { System } from './support/system.js';

const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const payTo = SOLANA_DEV_ACCOUNTS.payTo.address;

describe('x402 on Solana through every service', () => {
  let system: System;
  let ledger: SolanaLedger;
  let client: x402Client;
  let paidFetch: typeof fetch;

  beforeAll(async () => {
    system = await System.start({ x402: true });
    ledger = system.solana!;
    const signer = await createKeyPairSignerFromBytes(
      new Uint8Array(getBase58Encoder().encode(SOLANA_DEV_ACCOUNTS.payer.secretKey)),
    );
    // The official client with only the Solana scheme, so it picks Solana from the challenge. It is
    // pointed at the ledger (registerExactSvmScheme would read the mint from the public mainnet RPC).
    client = new x402Client().register('solana:*', new ExactSvmScheme(signer, { rpcUrl: ledger.url }));
    paidFetch = wrapFetchWithPayment(fetch, client);
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
  });

  const challenge = (path: string, init?: RequestInit): Promise<PaymentRequired> => system.challenge(path, init);

  const solanaOffer = (required: PaymentRequired) => required.accepts.find((a) => a.network === SOLANA)!;

  /**
   * A payment signed by the official client for `path`'s Solana offer, or for `signAs` (the offer
   * changed) while still claiming the real offer: what a client that built a wrong transaction sends.
   */
  async function signedFor(
    path: string,
    init: RequestInit = {},
    signAs?: (offer: PaymentRequirements) => PaymentRequirements,
  ): Promise<string> {
    const required = await challenge(path, init);
    const offer = solanaOffer(required);
    const payload = await client.createPaymentPayload({ ...required, accepts: [signAs ? signAs(offer) : offer] });
    return encodePaymentSignatureHeader({ ...payload, accepted: offer });
  }

  const send = (path: string, signature: string, init?: RequestInit) => system.paid(path, signature, init);

  it('offers USDC on Solana mainnet after Base and Monad, to the local payTo, with the facilitator as fee payer', async () => {
    const required = await challenge('/api/apps?term=chess');
    expect(required.accepts.map((a) => a.network)).toEqual(['eip155:8453', 'eip155:143', SOLANA]);
    expect(solanaOffer(required)).toEqual({
      scheme: 'exact',
      network: SOLANA,
      amount: '3000',
      asset: USDC_MINT,
      payTo,
      maxTimeoutSeconds: expect.any(Number),
      extra: { feePayer: SOLANA_DEV_ACCOUNTS.feePayer.address },
    });
  });

  it('the official client pays a call on Solana: 200, a receipt naming the network and transaction, exactly 3000 more USDC for payTo', async () => {
    const before = await ledger.usdcBalance(payTo);
    const payerBefore = await ledger.usdcBalance(SOLANA_DEV_ACCOUNTS.payer.address);
    const res = await paidFetch(system.baseUrl + '/api/apps/284882215');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { results: { trackId: number }[] } };
    expect(body.data.results[0].trackId).toBe(284882215);
    const receipt = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(receipt).toMatchObject({ success: true, network: SOLANA, payer: SOLANA_DEV_ACCOUNTS.payer.address });
    expect(receipt.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    const status = await rpc('getSignatureStatuses', [[receipt.transaction]]);
    expect(status).toMatchObject({ value: [{ err: null, confirmationStatus: 'finalized' }] });
    expect((await ledger.usdcBalance(payTo)) - before).toBe(3000n);
    expect(payerBefore - (await ledger.usdcBalance(SOLANA_DEV_ACCOUNTS.payer.address))).toBe(3000n);
  });

  it('one signed transaction sent twice, then five times at once, is delivered once each time', async () => {
    const before = await ledger.usdcBalance(payTo);
    const first = await signedFor('/api/apps/284882215');
    expect((await send('/api/apps/284882215', first)).status).toBe(200);
    const again = await send('/api/apps/284882215', first);
    expect(again.status).toBe(402);
    expect(again.body.message).toBe('payment already used');

    const second = await signedFor('/api/apps/284882215');
    const answers = await Promise.all(Array.from({ length: 5 }, () => send('/api/apps/284882215', second)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 402).map((a) => a.body.message)).toEqual(
      Array(4).fill('payment already used'),
    );
    expect((await ledger.usdcBalance(payTo)) - before).toBe(6000n);
  });

  it.each([
    [
      'the wrong mint',
      async () => {
        const required = await challenge('/api/apps/1');
        const payload = await client.createPaymentPayload({ ...required, accepts: [solanaOffer(required)] });
        return encodePaymentSignatureHeader({
          ...payload,
          accepted: { ...payload.accepted, asset: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB' },
        });
      },
      /not the USDC this resource accepts/,
    ],
    [
      'a transfer to the wrong payTo',
      async () => {
        const stranger = (await generateKeyPairSigner()).address;
        return signedFor('/api/apps/1', {}, (offer) => ({ ...offer, payTo: stranger }));
      },
      /payment is not addressed to this service/,
    ],
    [
      'too small an amount',
      () => signedFor('/api/apps/1', {}, (offer) => ({ ...offer, amount: '2999' })),
      /payment transfer amount does not match the price \(3000 required\)/,
    ],
    [
      'an expired blockhash',
      async () => {
        const signature = await signedFor('/api/apps/1');
        ledger.advanceSlots(151);
        return signature;
      },
      /settlement failed: invalid_exact_svm_transaction_simulation_failed/,
    ],
    [
      'a tampered signature',
      async () => {
        const payload = JSON.parse(Buffer.from(await signedFor('/api/apps/1'), 'base64').toString()) as PaymentPayload;
        const bytes = new Uint8Array(
          getBase64Encoder().encode((payload.payload as { transaction: string }).transaction),
        );
        bytes[1 + 64 + 10] ^= 0xff; // in the payer's signature (after the count and the fee payer's empty slot)
        return encodePaymentSignatureHeader({
          ...payload,
          payload: { transaction: Buffer.from(bytes).toString('base64') },
        });
      },
      /payment transaction signature does not verify/,
    ],
  ])(
    'a Solana payment with %s → 402 naming the reason, nothing delivered, nothing paid',
    async (_name, make, reason) => {
      const before = await ledger.usdcBalance(payTo);
      const answer = await send('/api/apps/1', await make());
      expect(answer.status).toBe(402);
      expect(answer.body.message).toMatch(reason);
      expect(answer.body.data).toBeNull();
      expect(answer.headers.get('payment-required')).toBeTruthy();
      expect(await ledger.usdcBalance(payTo)).toBe(before);
    },
  );

  it('a USD 1 top-up on Solana creates a key holding exactly 1; a recharge on Solana adds to it', async () => {
    const before = await ledger.usdcBalance(payTo);
    const created = await paidFetch(system.baseUrl + '/api/credits/topup?amount=1', { method: 'POST' });
    expect(created.status).toBe(200);
    expect(decodePaymentResponseHeader(created.headers.get('payment-response')!)).toMatchObject({
      success: true,
      network: SOLANA,
    });
    const { data } = (await created.json()) as { data: { apiKey: string; balance: string } };
    expect(data.balance).toBe('1.000000');
    expect(await system.balance(data.apiKey)).toBe('1.000000');

    const init = { method: 'POST', headers: { authorization: `Bearer ${data.apiKey}` } };
    const recharged = await send(
      '/api/credits/topup?amount=1',
      await signedFor('/api/credits/topup?amount=1', init),
      init,
    );
    expect(recharged.status).toBe(200);
    expect(recharged.body.data).toMatchObject({ balance: '2.000000', credited: '1.000000' });
    expect(await system.balance(data.apiKey)).toBe('2.000000');
    expect((await ledger.usdcBalance(payTo)) - before).toBe(2_000_000n);
  });

  async function rpc(method: string, params: unknown[]): Promise<unknown> {
    const res = await fetch(ledger.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return ((await res.json()) as { result: unknown }).result;
  }
});
