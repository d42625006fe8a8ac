import {
  AccountRole,
  address,
  appendTransactionMessageInstruction,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
} from '@solana/kit';
import { PaymentLock } from './payment-lock.js';

const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

describe('PaymentLock.identify', () => {
  it('keys a Solana payment on the payer signature, whatever fills the fee payer slot', async () => {
    const payer = await generateKeyPairSigner();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(address('EGf34g6uRUtkYz4uUrAQeRgJX2SrhA59qgewa4EhhvW3'), m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: '11111111111111111111111111111111' as Blockhash, lastValidBlockHeight: 1n },
          m,
        ),
      (m) =>
        appendTransactionMessageInstruction(
          {
            programAddress: address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'),
            accounts: [{ address: payer.address, role: AccountRole.READONLY_SIGNER, signer: payer }],
            data: new Uint8Array([1, 2, 3]),
          },
          m,
        ),
    );
    const signed = await partiallySignTransactionMessageWithSigners(message);
    const wire = getBase64EncodedWireTransaction(signed);
    const payerSignature = getBase58Decoder().decode(signed.signatures[payer.address]!);

    const identity = PaymentLock.identify(SOLANA, { transaction: wire }, 'header');
    expect(identity).toBe(`${SOLANA}:sig:${payerSignature}`);

    const bytes = new Uint8Array(getBase64Encoder().encode(wire));
    bytes.fill(7, 1, 65); // garbage where the facilitator's signature goes
    expect(PaymentLock.identify(SOLANA, { transaction: Buffer.from(bytes).toString('base64') }, 'other header')).toBe(
      identity,
    );
  });

  it('keys an EVM payment on (network, payer, nonce), and anything else on its bytes', () => {
    expect(PaymentLock.identify('eip155:8453', { authorization: { from: '0xAB', nonce: '0xCD' } }, 'h')).toBe(
      'eip155:8453:0xab:0xcd',
    );
    expect(PaymentLock.identify(SOLANA, { transaction: 'not a transaction' }, 'h')).toMatch(
      new RegExp(`^${SOLANA}:tx:[0-9a-f]{64}$`),
    );
  });
});
