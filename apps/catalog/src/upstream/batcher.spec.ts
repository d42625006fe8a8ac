import { Batcher } from './batcher.js';

describe('Batcher', () => {
  const echo = () => {
    const calls: { params: string; ids: string[] }[] = [];
    const batcher = new Batcher<string, string>({
      windowMs: 10,
      maxIds: 3,
      run: async (params, ids) => {
        calls.push({ params, ids });
        return new Map(ids.filter((id) => id !== 'missing').map((id) => [id, `${params}:${id}`]));
      },
    });
    return { batcher, calls };
  };

  it('answers ids asked within the window with one call per group; missing ids are undefined', async () => {
    const { batcher, calls } = echo();
    const answers = await Promise.all([
      batcher.load('us', 'us', 'a'),
      batcher.load('gb', 'gb', 'a'),
      batcher.load('us', 'us', 'b'),
      batcher.load('us', 'us', 'missing'),
    ]);
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
    const batcher = new Batcher<null, string>({
      windowMs: 5,
      maxIds: 10,
      run: async () => {
        throw new Error('upstream down');
      },
    });
    const results = await Promise.allSettled([batcher.load('g', null, 'a'), batcher.load('g', null, 'b')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });

  it('holds the next batch of a group while its call is out, so a slow upstream gets fewer, bigger calls', async () => {
    const calls: string[][] = [];
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const batcher = new Batcher<null, string>({
      windowMs: 5,
      maxIds: 100,
      run: async (_params, ids) => {
        calls.push(ids);
        if (calls.length === 1) await slow;
        return new Map(ids.map((id) => [id, id]));
      },
    });
    const first = batcher.load('g', null, 'a');
    await new Promise((r) => setTimeout(r, 20));
    const later = ['b', 'c', 'd'].map((id) => batcher.load('g', null, id));
    await new Promise((r) => setTimeout(r, 20));
    const otherGroup = await batcher.load('h', null, 'x');
    expect(otherGroup).toBe('x');
    expect(calls).toEqual([['a'], ['x']]);
    release();
    expect(await Promise.all([first, ...later])).toEqual(['a', 'b', 'c', 'd']);
    expect(calls).toEqual([['a'], ['x'], ['b', 'c', 'd']]);
  });

  it('keeps taking ids while it waits at the gate, and fails them all if the gate refuses', async () => {
    const calls: string[][] = [];
    const gates: { open: () => void; refuse: (e: Error) => void }[] = [];
    const batcher = new Batcher<null, string>({
      windowMs: 5,
      maxIds: 3,
      gate: () => new Promise<void>((open, refuse) => gates.push({ open, refuse })),
      run: async (_params, ids) => (calls.push(ids), new Map(ids.map((id) => [id, id]))),
    });
    const first = batcher.load('g', null, 'a');
    await new Promise((r) => setTimeout(r, 20));
    expect(gates).toHaveLength(1);
    // Arriving while the batch waits for its token: they ride along, up to the batch size.
    const riders = ['b', 'c'].map((id) => batcher.load('g', null, id));
    const next = batcher.load('g', null, 'd');
    gates[0].open();
    expect(await Promise.all([first, ...riders])).toEqual(['a', 'b', 'c']);
    expect(calls).toEqual([['a', 'b', 'c']]);
    await new Promise((r) => setTimeout(r, 20));
    expect(gates).toHaveLength(2);
    gates[1].refuse(new Error('rate limit'));
    await expect(next).rejects.toThrow('rate limit');
    expect(calls).toHaveLength(1);
  });
});
