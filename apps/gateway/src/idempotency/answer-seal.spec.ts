import { createHash } from 'node:crypto';
import { AnswerSeal } from './answer-seal.js';

describe('AnswerSeal', () => {
  const name = { scope: 'x402', key: 'pay_7d5d747be160e280504c099d984bcfe0', fingerprint: 'fp-of-the-payload' };
  const answer = JSON.stringify({ answer: { apiKey: 'ak_secretsecretsecretsecretsecretsecretsecret' } });

  it('opens what it sealed, under the same id and fingerprint', () => {
    const sealed = AnswerSeal.for(name).seal(answer);
    expect(AnswerSeal.for({ ...name }).open(sealed)).toBe(answer);
  });

  it('keeps no plaintext: neither the answer nor the key inside it, nor the id, appears in the sealed text', () => {
    const sealed = AnswerSeal.for(name).seal(answer);
    for (const secret of ['ak_secretsecretsecretsecretsecretsecretsecret', 'apiKey', name.key])
      expect(sealed).not.toContain(secret);
    // Base64url of the plaintext would betray it too.
    expect(sealed).not.toContain(Buffer.from(answer).toString('base64url').slice(0, 24));
  });

  it('seals the same answer differently each time (a fresh nonce)', () => {
    const seal = AnswerSeal.for(name);
    expect(seal.seal(answer)).not.toBe(seal.seal(answer));
  });

  it('does not open under another id, another fingerprint, another scope, or with what Redis holds (the hashed name)', () => {
    const sealed = AnswerSeal.for(name).seal(answer);
    expect(AnswerSeal.for({ ...name, key: 'pay_00000000000000000000000000000000' }).open(sealed)).toBeUndefined();
    expect(AnswerSeal.for({ ...name, fingerprint: 'another-payload' }).open(sealed)).toBeUndefined();
    expect(AnswerSeal.for({ ...name, scope: 'key:abc' }).open(sealed)).toBeUndefined();
    const hashedName = createHash('sha256').update(name.key).digest('base64url');
    expect(AnswerSeal.for({ ...name, key: hashedName }).open(sealed)).toBeUndefined();
  });

  it('refuses an altered or foreign text', () => {
    const sealed = AnswerSeal.for(name).seal(answer);
    // One character in the middle (every bit of it significant), in the ciphertext and then in the tag.
    for (const at of [sealed.length - 20, 'sealed.v1.'.length + 20]) {
      const altered = sealed.slice(0, at) + (sealed[at] === 'A' ? 'B' : 'A') + sealed.slice(at + 1);
      expect(AnswerSeal.for(name).open(altered)).toBeUndefined();
    }
    expect(AnswerSeal.for(name).open(answer)).toBeUndefined();
    expect(AnswerSeal.for(name).open('sealed.v1.')).toBeUndefined();
  });
});
