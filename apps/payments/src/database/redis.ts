import { Redis, type RedisOptions } from 'ioredis';

/**
 * A Redis connection speaking RESP2, so stream replies (XREADGROUP, XAUTOCLAIM) keep their documented
 * nested-array shape instead of RESP3 maps flattened by the client. Balances never travel as Redis
 * integers: the scripts return them as strings.
 */
export function connectRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { protocol: 2, ...options });
}
