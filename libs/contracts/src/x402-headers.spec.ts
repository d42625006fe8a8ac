import {
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http';
import fc from 'fast-check';
import { decodeX402Header, encodeX402Header } from './x402-headers.js';

/** What a decoder does with `header`: the value, or that it threw. */
function outcome(decode: (header: string) => unknown, header: string): { value: unknown } | 'throws' {
  try {
    return { value: decode(header) };
  } catch {
    return 'throws';
  }
}

/** Base64 text of JSON, cut or padded at random, with an occasional character from outside the alphabet. */
const headerLike = fc
  .tuple(
    fc.oneof(
      fc.jsonValue().map((value) => Buffer.from(JSON.stringify(value) ?? 'null')),
      fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
      fc
        .jsonValue()
        .map((value) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(value))])),
    ),
    fc.nat({ max: 3 }),
    fc.constantFrom('', '=', '==', '===', ' ', '-', '\n', 'é'),
    fc.boolean(),
  )
  .map(([bytes, cut, extra, stripPadding]) => {
    let text = bytes.toString('base64');
    if (stripPadding) text = text.replace(/=+$/, '');
    return text.slice(0, Math.max(0, text.length - cut)) + extra;
  });

describe('x402 headers', () => {
  it('decodes exactly what @x402/core decodes, and refuses what it refuses', () => {
    fc.assert(
      fc.property(headerLike, (header) => {
        expect(outcome(decodeX402Header, header)).toEqual(outcome(decodePaymentSignatureHeader, header));
      }),
      { numRuns: 2_000 },
    );
  });

  it('writes the header @x402/core writes', () => {
    fc.assert(
      fc.property(
        fc.record({
          success: fc.boolean(),
          transaction: fc.string(),
          network: fc.string().map((id) => `eip155:${id}` as const),
          payer: fc.string(),
        }),
        (response) => {
          expect(encodeX402Header(response)).toBe(encodePaymentResponseHeader(response));
          expect(decodeX402Header(encodeX402Header(response))).toEqual(response);
        },
      ),
    );
  });

  it('writes the payment-required and payment-signature headers @x402/core writes', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        expect(encodeX402Header(value)).toBe(encodePaymentRequiredHeader(value as never));
        expect(encodeX402Header(value)).toBe(encodePaymentSignatureHeader(value as never));
      }),
    );
  });

  it('keeps text beyond ASCII', () => {
    const value = { description: 'Übersicht — 日本語 🚀' };
    expect(decodeX402Header(encodeX402Header(value))).toEqual(value);
  });

  it.each([
    ['QQ=', 'padding at a length that is not a multiple of 4'],
    ['QUJDR', 'a length of 4n + 1'],
    ['eyJ9 ', 'a character outside the alphabet'],
  ])('refuses %s (%s), as atob does', (header) => {
    expect(() => decodeX402Header(header)).toThrow('not base64');
    expect(() => decodePaymentSignatureHeader(header)).toThrow();
  });
});
