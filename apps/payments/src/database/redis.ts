import type { RedisEndpoint } from '@appcat/config';
import { Cluster, Redis, type RedisOptions } from 'ioredis';

/** One Redis server or a Redis Cluster: the credit path works on both (see CreditKeyspace). */
export type RedisClient = Redis | Cluster;

/**
 * A Redis connection speaking RESP2, so stream replies (XREADGROUP, XAUTOCLAIM) keep their documented
 * nested-array shape instead of RESP3 maps flattened by the client. Balances never travel as Redis
 * integers: the scripts return them as strings.
 *
 * With cluster nodes, a Redis Cluster client: commands go to the primary owning their slot, and after a
 * failover it learns the new owner from the MOVED reply (refreshing the slot table) and retries there.
 * `enableOfflineQueue` and `enableAutoPipelining` apply to the cluster as a whole, the rest to each node.
 * A command whose node connection closed under it is not sent again (ioredis would, after
 * `retryDelayOnFailover`): it may have run before the node died, and a debit's script or a ledger read
 * run twice takes the credit twice or strands the entries read; it fails instead, as it does on one Redis
 * with `maxRetriesPerRequest: 0` (the ambiguous case of docs/credits.md). Commands refused without
 * running (CLUSTERDOWN, TRYAGAIN, MOVED) are retried.
 */
export function connectRedis(endpoint: RedisEndpoint, options?: RedisOptions): RedisClient;
/** One server by URL (tools and tests). */
export function connectRedis(url: string, options?: RedisOptions): Redis;
export function connectRedis(endpoint: RedisEndpoint | string, options: RedisOptions = {}): RedisClient {
  if (typeof endpoint === 'string') return new Redis(endpoint, { protocol: 2, ...options });
  if (endpoint.clusterNodes.length === 0) return new Redis(endpoint.url, { protocol: 2, ...options });
  const { enableOfflineQueue, enableAutoPipelining, ...nodeOptions } = options;
  const url = new URL(endpoint.url);
  return new Cluster(endpoint.clusterNodes, {
    enableOfflineQueue,
    enableAutoPipelining,
    scaleReads: 'master',
    retryDelayOnFailover: 0,
    // A failover (node timeout + election) takes a few seconds: a command refused meanwhile waits briefly
    // and is retried on the new primary, within the command timeout.
    retryDelayOnClusterDown: 200,
    redisOptions: {
      protocol: 2,
      username: url.username ? decodeURIComponent(url.username) : undefined,
      password: url.password ? decodeURIComponent(url.password) : undefined,
      tls: url.protocol === 'rediss:' ? {} : undefined,
      ...nodeOptions,
    },
  });
}

/** Whether a client talks to a Redis Cluster (some commands must then go slot by slot). */
export function isCluster(redis: RedisClient): redis is Cluster {
  return (redis as Cluster).isCluster === true;
}
