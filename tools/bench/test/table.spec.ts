import { count, fixed, markdownTable, megabytes, percent, times, verdict } from '../src/table.js';

describe('markdownTable', () => {
  it('pads columns to the widest cell, first column left aligned, the rest right aligned', () => {
    expect(
      markdownTable(
        ['target', 'req/s'],
        [
          ['ours', '1,234'],
          ['floor', '99'],
        ],
      ),
    ).toBe(['| target | req/s |', '|:-------|------:|', '| ours   | 1,234 |', '| floor  |    99 |'].join('\n'));
  });
  it('honours explicit alignment and tolerates short rows', () => {
    expect(markdownTable(['a', 'b'], [['x']], ['left', 'left'])).toBe(
      ['| a   | b   |', '|:----|:----|', '| x   |     |'].join('\n'),
    );
  });
});

describe('number formats', () => {
  it('writes a dash for figures that could not be measured', () => {
    for (const format of [fixed, count, times, percent, megabytes]) expect(format(Number.NaN)).toBe('–');
  });
  it('formats counts, ratios, percentages and sizes', () => {
    expect(count(12345.6)).toBe('12,346');
    expect(fixed(1.234, 2)).toBe('1.23');
    expect(times(1.806)).toBe('1.81×');
    expect(percent(0.637)).toBe('64 %');
    expect(megabytes(150 * 1024 * 1024)).toBe('150.0 MB');
  });
  it('says whether a target was met', () => {
    expect([verdict(true), verdict(false), verdict(undefined)]).toEqual(['met', 'NOT met', 'not measured']);
  });
});
