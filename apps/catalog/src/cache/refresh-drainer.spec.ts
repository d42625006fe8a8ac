import { chooseRefreshes } from './refresh-drainer.js';

const key = (name: string, group?: string) => ({ name, job: { group } });
const names = (list: { name: string }[]) => list.map((r) => r.name);

describe('chooseRefreshes', () => {
  it('spends one call per group of up to batchMaxIds keys, most requested first, and puts the rest back', () => {
    const taken = [
      key('a1', 'us'),
      key('s1'),
      key('a2', 'us'),
      key('b1', 'gb'),
      key('a3', 'us'),
      key('s2'),
      key('a4', 'us'),
    ];
    // Two calls: the us lookups (batches of 3) and the first search; a4 needs a second us call.
    const { chosen, rest } = chooseRefreshes(taken, 2, 3);
    expect(names(chosen)).toEqual(['a1', 's1', 'a2', 'a3']);
    expect(names(rest)).toEqual(['b1', 's2', 'a4']);
  });

  it('chooses nothing without a call to spend', () => {
    expect(chooseRefreshes([key('a', 'us')], 0, 100)).toEqual({ chosen: [], rest: [key('a', 'us')] });
  });
});
