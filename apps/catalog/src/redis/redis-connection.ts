import { Redis, type RedisOptions } from 'ioredis';
import type { RedisSettings } from '../config.js';

/**
 * A Redis connection for the catalog. RESP2 keeps script replies in their documented shapes. A slow or
 * absent Redis must not hold requests: commands time out quickly and are not queued while offline,
 * and the callers treat a failed command as "Redis is down" and carry on without it.
 */
export function connectRedis(settings: RedisSettings, name: string, overrides: RedisOptions = {}): Redis {
  return new Redis(settings.url, {
    protocol: 2,
    connectionName: name,
    commandTimeout: settings.commandTimeoutMs,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    // Keep trying to come back, at most every 2 s.
    retryStrategy: (attempt) => Math.min(2000, 50 * 2 ** Math.min(attempt, 6)),
    // Closing a connection whose socket is already gone otherwise holds the process for 2 s.
    disconnectTimeout: 200,
    ...overrides,
  });
}

/** Waits until the connection is ready, or gives up after `timeoutMs` (the catalog then starts without Redis). */
export async function redisReady(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return true;
  return new Promise<boolean>((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.once('ready', onReady);
  });
}
