import { interleave, median, percentile, ratio, spread, summarise } from '../src/stats.js';

describe('median', () => {
  it('is the middle value of an odd count, in any order', () => {
    expect(median([5, 1, 3])).toBe(3);
  });
  it('is the mean of the two middle values of an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
  it('is NaN for no values', () => {
    expect(median([])).toBeNaN();
  });
});

describe('percentile', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i);
  it('takes the nearest rank', () => {
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile(hundred, 0)).toBe(1);
  });
  it('is NaN for no values', () => {
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('ratio and spread', () => {
  it('divides, and says NaN rather than Infinity for a zero floor', () => {
    expect(ratio(3, 4)).toBe(0.75);
    expect(ratio(3, 0)).toBeNaN();
    expect(ratio(Number.NaN, 2)).toBeNaN();
  });
  it('spread is (max − min) ÷ median, 0 for a single round', () => {
    expect(spread([90, 100, 110])).toBeCloseTo(0.2);
    expect(spread([100])).toBe(0);
  });
});

describe('summarise', () => {
  it('takes the median of each figure on its own and sums errors', () => {
    const summary = summarise([
      { requestsPerSecond: 1000, p50Ms: 10, p99Ms: 50, errors: 1 },
      { requestsPerSecond: 1200, p50Ms: 8, p99Ms: 90, errors: 0 },
      { requestsPerSecond: 1100, p50Ms: 9, p99Ms: 40, errors: 2 },
    ]);
    expect(summary).toEqual({ rounds: 3, requestsPerSecond: 1100, p50Ms: 9, p99Ms: 50, errors: 3, spread: 200 / 1100 });
  });
});

describe('interleave', () => {
  it('runs every target once per round, in the same order each round', () => {
    expect(interleave(['A', 'B'], 3).map(({ round, target }) => `${target}${round}`)).toEqual([
      'A0',
      'B0',
      'A1',
      'B1',
      'A2',
      'B2',
    ]);
  });
});
