import { formatUsd, parseMicros, parseUsd, PRICE_PER_CALL_MICROS } from './money.js';

describe('money', () => {
  it('formats micro-USD with six decimals', () => {
    expect(formatUsd(PRICE_PER_CALL_MICROS)).toBe('0.003000');
    expect(formatUsd(4_997_000n)).toBe('4.997000');
    expect(formatUsd(0n)).toBe('0.000000');
    expect(formatUsd(12_345_678_901_234_567n)).toBe('12345678901.234567');
    expect(formatUsd(-3000n)).toBe('-0.003000');
  });

  it('parses decimal USD exactly, rejecting anything else', () => {
    expect(parseUsd('1')).toBe(1_000_000n);
    expect(parseUsd('0.003')).toBe(3000n);
    expect(parseUsd('5.000001')).toBe(5_000_001n);
    expect(parseUsd('0.1')).toBe(100_000n);
    for (const bad of ['', '1.', '.5', '1.0000001', '-1', '1e3', ' 1', '01', '0x10', 'NaN', '1,5']) {
      expect(parseUsd(bad)).toBeNull();
    }
  });

  it('round-trips every amount that parses', () => {
    for (const text of ['0.000001', '1.000000', '999999.999999', '10000.000000']) {
      expect(formatUsd(parseUsd(text)!)).toBe(text);
    }
  });

  it('parses wire amounts strictly', () => {
    expect(parseMicros('3000')).toBe(3000n);
    expect(() => parseMicros('3000.5')).toThrow(RangeError);
    expect(() => parseMicros('-1')).toThrow(RangeError);
    expect(() => parseMicros(3000 as unknown as string)).toThrow(RangeError);
  });
});
