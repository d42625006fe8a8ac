import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { RedisSettings } from '../config.js';

/** One Redis server or a Redis Cluster: every catalog script keeps its keys in one slot (see resourceKeys). */
export type RedisClient = Redis | Cluster;

/**
 * A Redis connection for the catalog. RESP2 keeps script replies in their documented shapes. A slow or
 * absent Redis must not hold requests: commands time out quickly and are not queued while offline,
 * and the callers treat a failed command as "Redis is down" and carry on without it.
 */
export function connectRedis(settings: RedisSettings, name: string, overrides: RedisOptions = {}): RedisClient {
  const options: RedisOptions = {
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
  };
  if (settings.clusterNodes.length === 0) return new Redis(settings.url, options);
  // On a cluster the offline queue, auto-pipelining and reconnecting are the cluster client's; the rest
  // applies to each node. A command caught by a failover is retried on the new primary once it is known.
  const { enableOfflineQueue, enableAutoPipelining, retryStrategy, ...nodeOptions } = options;
  const url = new URL(settings.url);
  return new Cluster(settings.clusterNodes, {
    enableOfflineQueue,
    enableAutoPipelining,
    clusterRetryStrategy: retryStrategy,
    retryDelayOnFailover: 100,
    redisOptions: {
      ...nodeOptions,
      username: url.username ? decodeURIComponent(url.username) : undefined,
      password: url.password ? decodeURIComponent(url.password) : undefined,
      tls: url.protocol === 'rediss:' ? {} : undefined,
    },
  });
}

/** Waits until the connection is ready, or gives up after `timeoutMs` (the catalog then starts without Redis). */
export async function redisReady(redis: RedisClient, timeoutMs: number): Promise<boolean> {
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
