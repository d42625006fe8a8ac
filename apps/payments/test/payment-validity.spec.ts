/*
 * The local rules on a payload's life, checked before any facilitator request: EIP-3009 windows, and
 * Solana transactions built with @solana/kit (a recent-blockhash one and a durable-nonce one).
 */
import {
  address,
  appendTransactionMessageInstruction,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  setTransactionMessageLifetimeUsingDurableNonce,
  type Nonce,
} from '@solana/kit';
import {
  CLOCK_SLACK_SECONDS,
  MIN_REMAINING_SECONDS,
  paymentValidity,
  SOLANA_BLOCKHASH_LIFE_SECONDS,
} from '../src/x402/payment-validity.js';

const MAX = 300;
const NOW_MS = 1_800_000_000_500;
const now = Math.floor(NOW_MS / 1000);
const evm = (validAfter: number | string, validBefore: number | string) => ({
  signature: '0x',
  authorization: {
    from: '0x1',
    to: '0x2',
    value: '3000',
    nonce: '0x3',
    validAfter: String(validAfter),
    validBefore: String(validBefore),
  },
});

describe('EIP-3009 authorization windows', () => {
  it('accepts what the official client signs (validAfter 0, validBefore now + maxTimeoutSeconds) and locks it until it expires', () => {
    expect(paymentValidity('evm', evm(0, now + MAX), MAX, NOW_MS)).toEqual({
      ok: true,
      lockMs: (MAX + CLOCK_SLACK_SECONDS) * 1000,
    });
    expect(paymentValidity('evm', evm(now - 600, now + 60), MAX, NOW_MS)).toEqual({
      ok: true,
      lockMs: (60 + CLOCK_SLACK_SECONDS) * 1000,
    });
  });

  it('allows a payer clock up to the slack ahead, not more', () => {
    expect(
      paymentValidity('evm', evm(now + CLOCK_SLACK_SECONDS, now + MAX + CLOCK_SLACK_SECONDS), MAX, NOW_MS),
    ).toMatchObject({ ok: true });
    expect(paymentValidity('evm', evm(now + CLOCK_SLACK_SECONDS + 1, now + MAX), MAX, NOW_MS)).toEqual({
      ok: false,
      reason: 'payment authorization is not valid yet',
    });
  });

  it('refuses an authorization valid for longer than maxTimeoutSeconds plus the slack (a year, or one second too long)', () => {
    const tooLong = { ok: false, reason: 'payment authorization is valid for longer than 300 s (maxTimeoutSeconds)' };
    expect(paymentValidity('evm', evm(0, now + 365 * 86_400), MAX, NOW_MS)).toEqual(tooLong);
    expect(paymentValidity('evm', evm(0, now + MAX + CLOCK_SLACK_SECONDS + 1), MAX, NOW_MS)).toEqual(tooLong);
  });

  it('refuses an expired authorization, and one expiring before a settlement could land', () => {
    const expired = { ok: false, reason: 'payment authorization has expired' };
    expect(paymentValidity('evm', evm(0, 1), MAX, NOW_MS)).toEqual(expired);
    expect(paymentValidity('evm', evm(0, now + MIN_REMAINING_SECONDS - 1), MAX, NOW_MS)).toEqual(expired);
    expect(paymentValidity('evm', evm(0, now + MIN_REMAINING_SECONDS), MAX, NOW_MS)).toMatchObject({ ok: true });
  });

  it.each([
    ['no authorization', { signature: '0x' }],
    ['a non-numeric validBefore', evm(0, 'soon')],
    ['a negative validAfter', evm('-1', now + 60)],
  ])('refuses %s', (_name, payload) => {
    expect(paymentValidity('evm', payload, MAX, NOW_MS)).toEqual({
      ok: false,
      reason: 'payment authorization lacks a validity window',
    });
  });

  it('reads a Permit2 authorization by its deadline', () => {
    const permit2 = (deadline: number) => ({
      permit2Authorization: { deadline: String(deadline), witness: { validAfter: '0' } },
    });
    expect(paymentValidity('evm', permit2(now + MAX), MAX, NOW_MS)).toMatchObject({ ok: true });
    expect(paymentValidity('evm', permit2(now + 86_400), MAX, NOW_MS)).toMatchObject({ ok: false });
  });
});

describe('Solana transaction lifetimes', () => {
  const MEMO_PROGRAM = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

  async function transaction(lifetime: 'blockhash' | 'durable-nonce'): Promise<string> {
    const payer = await generateKeyPairSigner();
    const nonceAccount = await generateKeyPairSigner();
    const base = pipe(createTransactionMessage({ version: 0 }), (m) => setTransactionMessageFeePayerSigner(payer, m));
    const withLifetime =
      lifetime === 'blockhash'
        ? setTransactionMessageLifetimeUsingBlockhash(
            { blockhash: blockhash('EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N'), lastValidBlockHeight: 1000n },
            base,
          )
        : setTransactionMessageLifetimeUsingDurableNonce(
            {
              nonce: 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N' as Nonce,
              nonceAccountAddress: nonceAccount.address,
              nonceAuthorityAddress: payer.address,
            },
            base,
          );
    const message = appendTransactionMessageInstruction(
      { programAddress: MEMO_PROGRAM, data: new TextEncoder().encode('x402') },
      withLifetime,
    );
    return getBase64EncodedWireTransaction(compileTransaction(message));
  }

  it('accepts a recent-blockhash transaction and locks it for maxTimeoutSeconds plus the slack, longer than a blockhash lives', async () => {
    expect(paymentValidity('svm', { transaction: await transaction('blockhash') }, MAX)).toEqual({
      ok: true,
      lockMs: (MAX + CLOCK_SLACK_SECONDS) * 1000,
    });
  });

  it('with a maxTimeoutSeconds shorter than a blockhash lives, still locks it for as long as the blockhash could', async () => {
    expect(paymentValidity('svm', { transaction: await transaction('blockhash') }, 30)).toEqual({
      ok: true,
      lockMs: (SOLANA_BLOCKHASH_LIFE_SECONDS + CLOCK_SLACK_SECONDS) * 1000,
    });
  });

  it('refuses a durable-nonce transaction, which never expires', async () => {
    expect(paymentValidity('svm', { transaction: await transaction('durable-nonce') }, MAX)).toEqual({
      ok: false,
      reason:
        'payment transaction uses a durable nonce and never expires; it must expire within 300 s (a recent blockhash)',
    });
  });

  it('refuses a payload without a decodable transaction', () => {
    expect(paymentValidity('svm', {}, MAX)).toMatchObject({
      ok: false,
      reason: 'payment lacks the signed Solana transaction',
    });
    expect(paymentValidity('svm', { transaction: 'AAAA' }, MAX)).toMatchObject({
      ok: false,
      reason: 'payment transaction is not a Solana wire transaction',
    });
  });
});
