import { PublishBatch } from './publish-batch.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('PublishBatch', () => {
  it('holds the publishes of one loop turn and makes them together, in order, once each', async () => {
    const batch = new PublishBatch();
    const sent: string[] = [];
    batch.defer(() => sent.push('a'), fail);
    await Promise.resolve(); // microtasks of the same turn still join the batch
    batch.defer(() => sent.push('b'), fail);
    batch.defer(() => sent.push('c'), fail);
    expect(sent).toEqual([]);
    await nextTurn();
    expect(sent).toEqual(['a', 'b', 'c']);
    await nextTurn();
    expect(sent).toEqual(['a', 'b', 'c']);
  });

  it('starts a new batch for the next turn', async () => {
    const batch = new PublishBatch();
    const turns: number[][] = [];
    let turn = 0;
    batch.defer(() => (turns[turn] ??= []).push(1), fail);
    await nextTurn();
    turn = 1;
    batch.defer(() => (turns[turn] ??= []).push(2), fail);
    batch.defer(() => (turns[turn] ??= []).push(3), fail);
    await nextTurn();
    expect(turns).toEqual([[1], [2, 3]]);
  });

  it('tells a publish that throws, and still makes the others', async () => {
    const batch = new PublishBatch();
    const sent: string[] = [];
    const errors: unknown[] = [];
    batch.defer(() => sent.push('before'), fail);
    batch.defer(
      () => {
        throw new Error('connection closed');
      },
      (error) => errors.push(error),
    );
    batch.defer(() => sent.push('after'), fail);
    await nextTurn();
    expect(sent).toEqual(['before', 'after']);
    expect(errors).toEqual([new Error('connection closed')]);
  });

  it('flush() publishes what is queued at once, and the scheduled turn finds nothing left', async () => {
    const batch = new PublishBatch();
    const sent: string[] = [];
    batch.defer(() => sent.push('x'), fail);
    batch.flush();
    expect(sent).toEqual(['x']);
    await nextTurn();
    expect(sent).toEqual(['x']);
  });

  it('runs beforeFlush hooks at the start of the same flush, and what they defer leaves in it', async () => {
    const batch = new PublishBatch();
    const flushes: string[][] = [];
    let current: string[] = [];
    const record = (name: string) => () => current.push(name);
    batch.defer(record('plain'), fail);
    batch.beforeFlush(() => batch.defer(record('from hook'), fail));
    await nextTurn();
    flushes.push(current);
    current = [];
    await nextTurn();
    flushes.push(current);
    expect(flushes).toEqual([['plain', 'from hook'], []]);
  });

  it('a hook alone schedules the flush', async () => {
    const batch = new PublishBatch();
    const sent: string[] = [];
    batch.beforeFlush(() => batch.defer(() => sent.push('hooked'), fail));
    await nextTurn();
    expect(sent).toEqual(['hooked']);
  });
});

function fail(error: unknown): never {
  throw error;
}
