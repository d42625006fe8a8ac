import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * HKDF's `info`: the seal's key is only ever this derivation of the id, never the hash that names the
 * record in Redis (payments' recordKey, a plain SHA-256 of the id), so knowing one tells nothing of the other.
 */
const INFO = 'appcat/idempotency/sealed-answer/v1';
const PREFIX = 'sealed.v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals a remembered answer that must never rest in plaintext (a top-up's answer holds the new API
 * key): AES-256-GCM under a key derived with HKDF-SHA256 from the name the caller chose (the
 * payment-identifier id) and the fingerprint of what it paid with. Redis keeps only the record's hashed
 * name, the fingerprint and the ciphertext; only a caller presenting the same id and payload again can
 * open it. Node's own crypto: no library needed for two standard primitives.
 */
export class AnswerSeal {
  private constructor(
    private readonly key: Buffer,
    /** Bound into the tag: a sealed answer opens only under the record it was made for. */
    private readonly context: Buffer,
  ) {}

  static for(name: { scope: string; key: string; fingerprint: string }): AnswerSeal {
    const key = Buffer.from(hkdfSync('sha256', name.key, name.fingerprint, INFO, 32));
    return new AnswerSeal(key, Buffer.from(`${name.scope}\n${name.fingerprint}`));
  }

  seal(plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(this.context);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The plaintext, or undefined when `sealed` was not sealed under this id and fingerprint (or was altered). */
  open(sealed: string): string | undefined {
    if (!sealed.startsWith(PREFIX)) return undefined;
    const bytes = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(this.context);
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
