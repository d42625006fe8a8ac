import { createHash } from 'node:crypto';

/** The Redis keys of one cached resource: its entry, the lock of whoever fills it, and its failure memo. */
export interface ResourceKeys {
  entry: string;
  lock: string;
  failure: string;
}

/**
 * Names a resource's keys, all with the same hash tag, so the cache scripts that touch two or three of
 * them (catalogProbe, catalogFill, catalogFail) stay in one slot on a Redis Cluster. The tag is the
 * resource key itself, or its SHA-1 if it holds a `}` (which would end the tag early).
 */
export function resourceKeys(prefix: string, key: string): ResourceKeys {
  const tag = key.includes('}') || key.length === 0 ? createHash('sha1').update(key).digest('hex') : key;
  return { entry: `${prefix}c:{${tag}}`, lock: `${prefix}lock:{${tag}}`, failure: `${prefix}fail:{${tag}}` };
}
