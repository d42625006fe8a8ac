import { seededRandom, zipfDraws } from '../src/catalog/workload.js';

describe('zipfDraws', () => {
  const ids = Array.from({ length: 10_000 }, (_, rank) => `app-${rank}`);
  const draws = 65_536;
  /** Probability of rank r under Zipf s=1 over the ids: 1 / ((r + 1) · H_n). */
  const harmonic = (n: number) => Array.from({ length: n }, (_, i) => 1 / (i + 1)).reduce((a, b) => a + b, 0);
  const probability = (rank: number) => 1 / ((rank + 1) * harmonic(ids.length));

  it('draws the same sequence for the same seed, and another for another seed', () => {
    expect(zipfDraws(ids, draws, 1, 1)).toEqual(zipfDraws(ids, draws, 1, 1));
    expect(zipfDraws(ids, draws, 1, 2)).not.toEqual(zipfDraws(ids, draws, 1, 1));
    expect(zipfDraws(ids, 5, 1, 7)).toEqual(zipfDraws(ids, 6, 1, 7).slice(0, 5));
  });

  it('draws only the given ids, and most of them: as many distinct ones as the distribution expects', () => {
    const drawn = zipfDraws(ids, draws, 1, 1);
    expect(drawn).toHaveLength(draws);
    const known = new Set(ids);
    expect(drawn.every((id) => known.has(id))).toBe(true);
    const H = harmonic(ids.length);
    const expectedDistinct = ids.reduce((sum, _, rank) => sum + 1 - Math.pow(1 - 1 / ((rank + 1) * H), draws), 0);
    const distinct = new Set(drawn).size;
    expect(distinct).toBeGreaterThan(0.97 * expectedDistinct);
    expect(distinct).toBeLessThan(1.03 * expectedDistinct);
    // About three quarters of 10,000: the tail is requested too, not only a handful of hot ids.
    expect(distinct).toBeGreaterThan(7_000);
  });

  it('is head-heavy: the first id is the most drawn, and the top 1 % take about half the draws', () => {
    const drawn = zipfDraws(ids, draws, 1, 1);
    const counts = new Map<string, number>();
    for (const id of drawn) counts.set(id, (counts.get(id) ?? 0) + 1);
    const mostDrawn = [...counts].sort((a, b) => b[1] - a[1])[0][0];
    expect(mostDrawn).toBe(ids[0]);
    expect(counts.get(ids[0])! / draws).toBeCloseTo(probability(0), 2);
    const top = ids.slice(0, 100).reduce((sum, id) => sum + (counts.get(id) ?? 0), 0) / draws;
    const expectedTop = harmonic(100) / harmonic(ids.length);
    expect(expectedTop).toBeGreaterThan(0.5);
    expect(Math.abs(top - expectedTop)).toBeLessThan(0.02);
    // A steeper exponent concentrates the draws further.
    const steep = zipfDraws(ids, draws, 2, 1).filter((id) => id === ids[0]).length / draws;
    expect(steep).toBeGreaterThan(0.5);
  });
});

describe('seededRandom', () => {
  it('is deterministic for a seed and stays in [0, 1)', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const values = Array.from({ length: 1000 }, () => a());
    expect(values).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
  });
});
