import { hashApiKey } from '@appcat/contracts';
import { getBase58Decoder } from '@solana/kit';
import { randomBytes } from 'node:crypto';

/**
 * API keys are `ak_` followed by 32 random bytes in base58 (no 0/O/I/l, nothing a double-click stops
 * at). Only their SHA-256 is stored; the first {@link PREFIX_LENGTH} characters are kept in clear so
 * admins can tell keys apart.
 */
export const KEY_MARKER = 'ak_';
export const PREFIX_LENGTH = 12;
const KEY_BYTES = 32;
/** Bytes as base58 text: @solana/kit's codec (Bitcoin's alphabet, leading zero bytes kept as "1"). */
const BASE58 = getBase58Decoder();

export interface IssuedKey {
  key: string;
  keyHash: string;
  prefix: string;
}

export function issueApiKey(): IssuedKey {
  const key = KEY_MARKER + BASE58.decode(randomBytes(KEY_BYTES));
  return { key, keyHash: hashApiKey(key), prefix: key.slice(0, PREFIX_LENGTH) };
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BASE58_TEXT = /^[1-9A-HJ-NP-Za-km-z]*$/;
/** A shorter prefix would match too many keys to be a useful name. */
const MIN_PREFIX_LENGTH = KEY_MARKER.length + 4;

export type KeyRef =
  | { kind: 'key'; keyHash: string }
  | { kind: 'id'; id: string }
  | { kind: 'prefix'; prefix: string }
  | { kind: 'invalid' };

/** Tells what an admin named: a whole key, a key id, or (the start of) a display prefix. */
export function classifyKeyRef(ref: string): KeyRef {
  const text = ref.trim();
  if (UUID_PATTERN.test(text)) return { kind: 'id', id: text.toLowerCase() };
  if (!text.startsWith(KEY_MARKER) || !BASE58_TEXT.test(text.slice(KEY_MARKER.length))) return { kind: 'invalid' };
  if (text.length > PREFIX_LENGTH) return { kind: 'key', keyHash: hashApiKey(text) };
  if (text.length >= MIN_PREFIX_LENGTH) return { kind: 'prefix', prefix: text };
  return { kind: 'invalid' };
}
