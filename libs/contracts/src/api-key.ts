import { createHash } from 'node:crypto';
import type { ApiKeyHash } from './payments.js';

/**
 * API keys look like `ak_` followed by a base58/base64url secret. The gateway checks the shape before
 * asking payments anything (so garbage never costs a round trip) and sends only the SHA-256 of the
 * key; Postgres and Redis know keys by that hash alone.
 */
export const API_KEY_PATTERN = /^ak_[A-Za-z0-9_-]{20,100}$/;

export function looksLikeApiKey(text: string): boolean {
  return API_KEY_PATTERN.test(text);
}

/** What {@link hashApiKey} gives: 64 lower-case hex digits. */
export const API_KEY_HASH_PATTERN = /^[0-9a-f]{64}$/;

/** SHA-256 of the key, lower-case hex: the only form in which a key is stored or sent between services. */
export function hashApiKey(key: string): ApiKeyHash {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
