/*
 * The page's payment module (static/payment.js, run here as the browser runs it) against the code it
 * must agree with: the gateway's amount rule, the x402 header codecs, and the official exact-EVM
 * client, whose payment for the same nonce and time must be the page's byte for byte.
 */
import { MAX_TOPUP_MICROS, MIN_TOPUP_MICROS } from '@appcat/contracts';
import { jest } from '@jest/globals';
import { x402Client } from '@x402/core/client';
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import fc from 'fast-check';
import { privateKeyToAccount } from 'viem/accounts';
import { readTopUpAmount } from '../credits/top-up-amount.js';
import { HttpError } from '../errors/http-error.js';
import * as payment from './static/payment.js';

// anvil's published account 0: a test key with no value anywhere.
const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');

const required: payment.PaymentRequiredV2 = {
  x402Version: 2,
  resource: {
    url: 'http://gateway.test/api/credits/topup?amount=1.5',
    description: 'Crédit prépayé — USD 1.5',
    mimeType: 'application/json',
  },
  accepts: [
    {
      scheme: 'exact',
      network: 'eip155:8453',
      amount: '1500000',
      asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      payTo: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      maxTimeoutSeconds: 300,
      extra: { name: 'USD Coin', version: '2' },
    },
    {
      scheme: 'exact',
      network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      amount: '1500000',
      asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
      payTo: 'CKPKJWNdJEqa81x7CkZ14BVPiY6y16Sxs7owznqtWYp5',
      maxTimeoutSeconds: 300,
      extra: { feePayer: 'CKPKJWNdJEqa81x7CkZ14BVPiY6y16Sxs7owznqtWYp5' },
    } as unknown as payment.EvmRequirement,
    {
      scheme: 'exact',
      network: 'eip155:143',
      amount: '1500000',
      asset: '0x754704Bc059F8C67012fEd69BC8A327a5aafb603',
      payTo: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      maxTimeoutSeconds: 300,
      extra: { name: 'USDC', version: '2' },
    },
  ],
};

function gatewayMicros(text: string): bigint | 'refused' {
  try {
    return readTopUpAmount(text);
  } catch (error) {
    if (error instanceof HttpError && error.status === 400) return 'refused';
    throw error;
  }
}

describe('top-up page payment module', () => {
  afterEach(() => jest.restoreAllMocks());

  it('has the gateway top-up limits', () => {
    expect(payment.MIN_TOPUP_MICROS).toBe(MIN_TOPUP_MICROS);
    expect(payment.MAX_TOPUP_MICROS).toBe(MAX_TOPUP_MICROS);
  });

  it.each([
    ['1', 1_000_000n],
    ['5', 5_000_000n],
    ['12.5', 12_500_000n],
    ['1.000001', 1_000_001n],
    ['10000', 10_000_000_000n],
    [' 7 ', 7_000_000n],
  ])('accepts %j as %s µUSD', (text, micros) => {
    expect(payment.parseTopUpAmount(text)).toMatchObject({ micros, text: text.trim() });
  });

  it.each([
    ['', /Enter an amount/],
    ['0.99', /smallest top-up is USD 1/],
    ['10000.000001', /largest top-up is USD 10,000/],
    ['1.0000001', /at most 6 decimals/],
    ['$5', /plain number/],
    ['1,000', /plain number/],
    ['1e3', /plain number/],
    ['-5', /plain number/],
    ['05', /plain number/],
  ])('refuses %j saying %s', (text, message) => {
    expect(payment.parseTopUpAmount(text).error).toMatch(message);
  });

  it('agrees with the gateway on every amount: same micros, or both refuse', () => {
    const amountLike = fc.oneof(
      fc.stringMatching(/^[0-9]{0,6}(\.[0-9]{0,8})?$/),
      fc
        .bigInt({ min: 0n, max: 20_000_000_000n })
        .map((micros) =>
          `${micros / 1_000_000n}.${(micros % 1_000_000n).toString().padStart(6, '0')}`.replace(/\.?0+$/, ''),
        ),
      fc.string({ unit: fc.constantFrom(...'0123456789.-+e, $'), maxLength: 12 }),
    );
    fc.assert(
      fc.property(amountLike, (text) => {
        const page = payment.parseTopUpAmount(text);
        // The page forgives surrounding spaces and sends the trimmed text; that text is what the gateway judges.
        const gateway = gatewayMicros(text.trim());
        if (gateway === 'refused') expect(page.error).toEqual(expect.any(String));
        else expect(page.micros).toBe(gateway);
      }),
      { numRuns: 2000 },
    );
  });

  it('formats micros with six decimals', () => {
    expect(payment.formatMicros(1_000_000n)).toBe('1.000000');
    expect(payment.formatMicros('2500')).toBe('0.002500');
  });

  it('decodes the gateway challenge header, UTF-8 included, and keeps only the EVM offers a wallet can sign', () => {
    const decoded = payment.decodePaymentRequired(encodePaymentRequiredHeader(required as unknown as PaymentRequired));
    expect(decoded).toEqual(required);
    expect(payment.evmAccepts(decoded).map((a) => a.network)).toEqual(['eip155:8453', 'eip155:143']);
    expect(
      payment.evmAccepts({
        ...decoded,
        accepts: [
          { ...required.accepts[0], extra: { name: 'USD Coin', version: '2', assetTransferMethod: 'permit2' } },
        ],
      }),
    ).toEqual([]);
  });

  it('refuses a missing or non-v2 challenge with a readable error', () => {
    expect(() => payment.decodePaymentRequired(null)).toThrow(/no payment-required header/);
    expect(() => payment.decodePaymentRequired(btoa(JSON.stringify({ x402Version: 1, accepts: [] })))).toThrow(
      /does not understand/,
    );
  });

  it('names chains, and reads chain ids from CAIP-2 networks', () => {
    expect(payment.chainIdOf('eip155:8453')).toBe(8453);
    expect(payment.chainName(8453)).toBe('Base');
    expect(payment.chainName(31337)).toBe('chain 31337');
    expect(() => payment.chainIdOf('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')).toThrow(/not an EVM network/);
  });

  it('makes a fresh 32-byte nonce each time', () => {
    const a = payment.randomNonce();
    expect(a).toMatch(/^0x[0-9a-f]{64}$/);
    expect(payment.randomNonce()).not.toBe(a);
  });

  it.each([0, 2])(
    'builds the payment the official x402 exact-EVM client builds, signature included (offer %i)',
    async (index) => {
      const requirement = required.accepts[index];
      const offer = { ...required, accepts: [requirement] };
      const now = 1_760_000_000;
      const nonceBytes = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 11) % 256);
      jest.spyOn(Date, 'now').mockReturnValue(now * 1000);
      jest
        .spyOn(globalThis.crypto, 'getRandomValues')
        .mockImplementation(<T extends ArrayBufferView | null>(bytes: T): T => {
          (bytes as unknown as Uint8Array).set(nonceBytes);
          return bytes;
        });

      // No spend cap: the page pays what the person typed, and the wallet shows it before signing.
      const client = registerExactEvmScheme(x402Client.fromConfig({ schemes: [], spendControls: false }), {
        signer: account,
      });
      const official = await client.createPaymentPayload(offer as unknown as PaymentRequired);

      const authorization = payment.transferAuthorization(requirement, account.address, now, payment.randomNonce());
      const typedData = payment.transferAuthorizationTypedData(requirement, authorization);
      // What a wallet does with eth_signTypedData_v4: sign the document as given, EIP712Domain included.
      const signature = await account.signTypedData(
        typedData as unknown as Parameters<typeof account.signTypedData>[0],
      );
      const header = payment.encodePaymentSignature(
        payment.paymentPayload(offer, requirement, authorization, signature),
      );

      expect(decodePaymentSignatureHeader(header)).toEqual(JSON.parse(JSON.stringify(official)));
    },
  );
});
