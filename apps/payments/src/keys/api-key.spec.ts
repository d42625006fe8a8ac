import { createHash } from 'node:crypto';
import { hashApiKey } from '@appcat/contracts';
import { getBase58Encoder } from '@solana/kit';
import { classifyKeyRef, issueApiKey } from './api-key.js';

describe('API keys', () => {
  it('are ak_ and 32 random bytes in base58, with a 12-character display prefix and a SHA-256 hex hash', () => {
    const issued = issueApiKey();
    expect(issued.key).toMatch(/^ak_[1-9A-HJ-NP-Za-km-z]{40,44}$/);
    expect(issued.prefix).toBe(issued.key.slice(0, 12));
    expect(issued.keyHash).toBe(createHash('sha256').update(issued.key).digest('hex'));
    expect(issueApiKey().key).not.toBe(issued.key);
  });

  it('carry their 32 random bytes: the base58 body reads back as 32 bytes', () => {
    const body = issueApiKey().key.slice('ak_'.length);
    expect(getBase58Encoder().encode(body)).toHaveLength(32);
  });

  it('hash to lowercase hex', () => {
    expect(hashApiKey('ak_x')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('are named by key, id or prefix', () => {
    const issued = issueApiKey();
    expect(classifyKeyRef(issued.key)).toEqual({ kind: 'key', keyHash: issued.keyHash });
    expect(classifyKeyRef(` ${issued.prefix} `)).toEqual({ kind: 'prefix', prefix: issued.prefix });
    expect(classifyKeyRef('ak_abcd')).toEqual({ kind: 'prefix', prefix: 'ak_abcd' });
    expect(classifyKeyRef('3F2504E0-4F89-41D3-9A0C-0305E82C3301')).toEqual({
      kind: 'id',
      id: '3f2504e0-4f89-41d3-9a0c-0305e82c3301',
    });
    for (const ref of ['', 'ak_', 'ak_abc', 'sk_abcdefghi', 'ak_0000', 'ak_abc def', '3f2504e0']) {
      expect(classifyKeyRef(ref)).toEqual({ kind: 'invalid' });
    }
  });
});
