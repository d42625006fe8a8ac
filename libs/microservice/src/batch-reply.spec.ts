import { type BatchItemResult, ErrorCode } from '@appcat/contracts';
import fc from 'fast-check';
import { batchReplyParts, handleBatchItems, joinBatchReplyParts } from './batch-reply.js';
import { WireException } from './wire-exception.js';

const ok = (text: string): BatchItemResult<{ dataJson: string }> => ({ ok: true, value: { dataJson: text } });

describe('batchReplyParts', () => {
  it('sends a reply that fits as one part, byte for byte the BatchReply', () => {
    const results = [ok('a'), { ok: false as const, error: { code: ErrorCode.Internal, message: 'x' } }, ok('é')];
    expect(batchReplyParts(results, 1000)).toEqual([JSON.stringify({ results })]);
  });

  it('splits by bytes, not characters, keeping order; each part within the bound; joined, the same results', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'binary', maxLength: 300 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 400, max: 3000 }),
        (texts, maxBytes) => {
          const results = texts.map(ok);
          const parts = batchReplyParts(results, maxBytes);
          for (const part of parts) expect(Buffer.byteLength(part)).toBeLessThanOrEqual(maxBytes);
          expect(joinBatchReplyParts(parts.map((part) => JSON.parse(part)))).toEqual({ results });
          // A part holds as much as fits: the next part's first result would not have fitted.
          if (parts.length > 1)
            expect(Buffer.byteLength(parts[0]) + Buffer.byteLength(parts[1])).toBeGreaterThan(maxBytes);
        },
      ),
    );
  });

  it('answers an item no part could carry as that item`s failure, the others untouched', () => {
    const results = [ok('a'), ok('x'.repeat(500)), ok('b')];
    const joined = joinBatchReplyParts(batchReplyParts(results, 200).map((part) => JSON.parse(part)));
    expect(joined.results).toEqual([
      ok('a'),
      {
        ok: false,
        error: {
          code: ErrorCode.ReplyTooLarge,
          message: expect.stringMatching(/^answer too large to send \(5\d\d bytes/),
        },
      },
      ok('b'),
    ]);
  });

  it('refuses to join a part that is not a batch reply', () => {
    expect(() => joinBatchReplyParts([{ results: [] }, { value: 1 }])).toThrow('a reply part is not a batch reply');
  });
});

describe('handleBatchItems', () => {
  it('answers each item as it is handled alone, in order; a failure is that item`s own and says no more than its code allows', async () => {
    const handle = async (item: unknown) => {
      if (item === 'refused') throw new WireException(ErrorCode.CreditInsufficient, 'topup_required');
      if (item === 'bug') throw new Error('secret detail');
      return `${String(item)}!`;
    };
    expect(await handleBatchItems({ items: ['a', 'refused', 'bug', 'b'] }, handle)).toEqual([
      { ok: true, value: 'a!' },
      { ok: false, error: { code: ErrorCode.CreditInsufficient, message: 'topup_required' } },
      { ok: false, error: { code: ErrorCode.Internal, message: 'internal error' } },
      { ok: true, value: 'b!' },
    ]);
  });

  it.each([
    ['no request', null],
    ['no items', {}],
    ['an empty batch', { items: [] }],
    ['items not an array', { items: 'a' }],
    ['257 items', { items: Array.from({ length: 257 }, () => 1) }],
  ])('%s is refused as a whole: INVALID_ARGUMENT', (_name, request) => {
    expect(() => handleBatchItems(request, async () => 1)).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidArgument }),
    );
  });
});
