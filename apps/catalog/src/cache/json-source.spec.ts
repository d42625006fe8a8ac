import fc from 'fast-check';
import { listJson, rememberJsonSource, toJson } from './json-source.js';

/** What the cache does with an entry it reads: decode the text and remember where the value came from. */
function fromCache(value: unknown): unknown {
  const text = JSON.stringify(value);
  const decoded: unknown = JSON.parse(text);
  rememberJsonSource(decoded, text);
  return decoded;
}

describe('JSON text of cached values', () => {
  const json = fc.jsonValue();

  it('gives exactly JSON.stringify of any value read from the cache, alone or among others', () => {
    fc.assert(
      fc.property(json, fc.array(fc.tuple(json, fc.boolean())), (value, mixed) => {
        const cached = fromCache(value);
        expect(toJson(cached)).toBe(JSON.stringify(cached));
        // A reply's list mixes values read from the cache with values built for the reply.
        const items = mixed.map(([item, cachedItem]) => (cachedItem ? fromCache(item) : item));
        expect(toJson(items)).toBe(JSON.stringify(items));
        expect(listJson({ resultCount: items.length, results: items })).toBe(
          JSON.stringify({ resultCount: items.length, results: items }),
        );
      }),
    );
  });

  it('uses the remembered text rather than serialising again', () => {
    const value = JSON.parse('{"a":1}') as object;
    rememberJsonSource(value, '{"a":1}');
    expect(listJson({ resultCount: 1, results: [value] })).toBe('{"resultCount":1,"results":[{"a":1}]}');
    // The text is what is written, so a value that had been changed in place would show the old text:
    // replies must build new arrays and objects instead (see json-source.ts).
    (value as Record<string, number>).a = 2;
    expect(toJson(value)).toBe('{"a":1}');
  });

  it('writes what JSON cannot hold inside arrays as null, as JSON.stringify does', () => {
    const items = [undefined, () => 1, Symbol('s'), new Date(0), null];
    expect(toJson(items)).toBe(JSON.stringify(items));
  });
});
