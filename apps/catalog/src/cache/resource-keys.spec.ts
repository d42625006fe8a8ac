import { resourceKeys } from './resource-keys.js';

/** The hash tag Redis Cluster hashes: from the first `{` to the next `}`, if not empty; else the whole key. */
function hashedPart(key: string): string {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

describe('resourceKeys', () => {
  it.each([
    'apple:app:us:en:id:284882215',
    'apple:search:us:en:a{b',
    'apple:search:us:en:}{}',
    'apple:search:us:en:x}y',
    '',
  ])('puts the entry, lock and failure memo of %j in one slot', (key) => {
    const keys = resourceKeys('catalog:', key);
    expect(new Set([keys.entry, keys.lock, keys.failure]).size).toBe(3);
    expect(new Set([hashedPart(keys.entry), hashedPart(keys.lock), hashedPart(keys.failure)]).size).toBe(1);
    expect(hashedPart(keys.entry)).not.toBe(keys.entry);
  });

  it('keeps resources apart', () => {
    expect(resourceKeys('catalog:', 'apple:app:us:1').entry).not.toBe(resourceKeys('catalog:', 'apple:app:us:2').entry);
  });
});
