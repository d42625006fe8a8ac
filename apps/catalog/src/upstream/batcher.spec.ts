import { Batcher } from './batcher.js';

describe('Batcher', () => {
  const echo = () => {
    const calls: { params: string; ids: string[] }[] = [];
    const batcher = new Batcher<string, string>(10, 3, async (params, ids) => {
      calls.push({ params, ids });
      return new Map(ids.filter((id) => id !== 'missing').map((id) => [id, `${params}:${id}`]));
    });
    return { batcher, calls };
  };

  it('answers ids asked within the window with one call per group; missing ids are undefined', async () => {
    const { batcher, calls } = echo();
    const answers = await Promise.all([batcher.load('us', 'us', 'a'), batcher.load('gb', 'gb', 'a'), batcher.load('us', 'us', 'b'), batcher.load('us', 'us', 'missing')]);
    expect(answers).toEqual(['us:a', 'gb:a', 'us:b', undefined]);
    expect(calls).toEqual([
      { params: 'us', ids: ['a', 'b', 'missing'] },
      { params: 'gb', ids: ['a'] },
    ]);
  });

  it('sends a full batch at once and starts another; the same id twice is asked once', async () => {
    const { batcher, calls } = echo();
    const answers = await Promise.all(['a', 'a', 'b', 'c', 'd'].map((id) => batcher.load('us', 'us', id)));
    expect(answers).toEqual(['us:a', 'us:a', 'us:b', 'us:c', 'us:d']);
    expect(calls.map((c) => c.ids)).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('fails every waiter of a failed call', async () => {
    const batcher = new Batcher<null, string>(5, 10, async () => {
      throw new Error('upstream down');
    });
    const results = await Promise.allSettled([batcher.load('g', null, 'a'), batcher.load('g', null, 'b')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});
