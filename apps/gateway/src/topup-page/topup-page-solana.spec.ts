/*
 * The page's Solana payment (static/payment.js, run here as the browser runs it) against the official
 * @x402/svm client: for the same offer, payer, blockhash and memo, the page's unsigned transaction
 * must be the client's byte for byte. The client reads the mint from the local Solana ledger.
 */
import { SOLANA_DEV_ACCOUNTS, type SolanaLedger, startSolanaLedger } from '@appcat/solana-ledger';
import { findAssociatedTokenPda } from '@solana-program/token';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import {
  createKeyPairSignerFromBytes,
  generateKeyPairSigner,
  getBase58Encoder,
  getBase64Encoder,
  getTransactionDecoder,
} from '@solana/kit';
import * as payment from './static/payment.js';

describe('the top-up page builds the transaction @x402/svm builds', () => {
  let ledger: SolanaLedger;
  beforeAll(async () => {
    ledger = await startSolanaLedger({ port: 0, slotMs: 0 });
  });
  afterAll(() => ledger?.close());

  const requirement = (blockhash: string): payment.SvmRequirement => ({
    scheme: 'exact',
    network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    amount: '1500000',
    asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    payTo: SOLANA_DEV_ACCOUNTS.payTo.address,
    maxTimeoutSeconds: 300,
    // A blockhash and memo in the offer make the official client use them rather than its own.
    extra: { feePayer: SOLANA_DEV_ACCOUNTS.feePayer.address, recentBlockhash: blockhash, memo: 'top-up 1.5' },
  });

  it('is byte for byte the official client’s unsigned transaction', async () => {
    const signer = await createKeyPairSignerFromBytes(
      new Uint8Array(getBase58Encoder().encode(SOLANA_DEV_ACCOUNTS.payer.secretKey)),
    );
    const answer = await fetch(ledger.url, {
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getLatestBlockhash' }),
    });
    const blockhash = ((await answer.json()) as { result: { value: { blockhash: string } } }).result.value.blockhash;
    const offer = requirement(blockhash);
    const official = await new ExactSvmScheme(signer, { rpcUrl: ledger.url }).createPaymentPayload(2, offer as never);
    const theirs = getTransactionDecoder().decode(
      getBase64Encoder().encode((official.payload as { transaction: string }).transaction),
    );

    const page = getTransactionDecoder().decode(
      await payment.solanaTransferTransaction(offer, signer.address, blockhash, 'top-up 1.5'),
    );
    expect(Buffer.from(page.messageBytes).toString('hex')).toBe(Buffer.from(theirs.messageBytes).toString('hex'));
    expect(Object.keys(page.signatures)).toEqual([SOLANA_DEV_ACCOUNTS.feePayer.address, signer.address]);
  });

  it('derives associated token accounts and base58 as @solana-program/token and kit do', async () => {
    for (let i = 0; i < 5; i++) {
      const owner = (await generateKeyPairSigner()).address;
      const [expected] = await findAssociatedTokenPda({
        owner,
        mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' as never,
        tokenProgram: payment.TOKEN_PROGRAM as never,
      });
      expect(await payment.associatedTokenAddress(owner, 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(
        expected,
      );
      expect(payment.base58Encode(payment.base58Decode(owner))).toBe(owner);
    }
    expect(payment.base58Encode(new Uint8Array(32))).toBe('11111111111111111111111111111111');
  });

  it('lists only Solana offers with a fee payer, and names the networks', () => {
    const offers = [
      requirement('11111111111111111111111111111111'),
      { ...requirement('x'), extra: {} },
      { scheme: 'exact', network: 'eip155:8453', extra: {} },
    ];
    expect(payment.solanaAccepts({ accepts: offers })).toHaveLength(1);
    expect(payment.networkName('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')).toBe('Solana');
    expect(payment.networkName('eip155:8453')).toBe('Base');
    expect(payment.walletChainOf('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')).toBe('solana:mainnet');
  });
});
