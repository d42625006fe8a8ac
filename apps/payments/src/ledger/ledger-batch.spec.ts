import { parseLedgerEntry } from './ledger-batch.js';

describe('parseLedgerEntry', () => {
  const key = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
  const fields = ['debit', 'd-1', 'key', key, 'amount', '3000', 'route', 'apps.get', 'at', '1700000000123'];

  it('reads a debit written by the debit script', () => {
    expect(parseLedgerEntry('1-0', fields)).toEqual({
      streamId: '1-0',
      debitId: 'd-1',
      keyId: key,
      amount: 3000n,
      route: 'apps.get',
      chargedAtMs: 1_700_000_000_123n,
    });
  });

  it('rejects anything else', () => {
    expect(parseLedgerEntry('1-0', null)).toBeNull();
    const broken = (name: string, value: string) => fields.map((v, i) => (fields[i - 1] === name ? value : v));
    for (const [name, value] of [
      ['amount', '0'],
      ['amount', '-3000'],
      ['amount', '3000.0'],
      ['key', 'nope'],
      ['at', 'soon'],
      ['debit', ''],
    ]) {
      expect(parseLedgerEntry('1-0', broken(name, value))).toBeNull();
    }
  });
});
