import { retryAfterMs } from './guarded-http-client.js';

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates, and ignores anything else', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs('30', now)).toBe(30_000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Wed, 01 Jan 2025 00:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs('Tue, 31 Dec 2024 00:00:00 GMT', now)).toBe(0);
    for (const value of [null, '', 'soon', '-5', '1.5']) expect(retryAfterMs(value, now)).toBeUndefined();
  });
});
