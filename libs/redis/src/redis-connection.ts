import type { RedisEndpoint } from '@appcat/config';
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';

/** One Redis server or a Redis Cluster: what payments and the catalog run on (REDIS_URL or REDIS_CLUSTER_NODES). */
export type RedisClient = Redis | Cluster;

/** How a cluster client waits out a failover; each service picks its own (see where it connects). */
export type ClusterFailoverOptions = Pick<ClusterOptions, 'retryDelayOnFailover' | 'retryDelayOnClusterDown'>;

/**
 * How often a cluster client re-reads the slot table by itself. It also learns a new owner from a lone
 * command's MOVED reply, but not from an auto-pipelined batch: ioredis retries a batch only when every
 * command in it got the same redirect, and a batch to one node spans many slots (ioredis#2075). After a
 * failover, batched traffic alone would otherwise keep going to the old owner and failing.
 */
export const CLUSTER_SLOTS_REFRESH_MS = 1_000;

/**
 * A Redis connection speaking RESP2, so stream and script replies keep their documented nested-array
 * shapes (RESP3 maps come flattened). `options` are the service's own; nothing is assumed here.
 * With cluster nodes, a Redis Cluster client: after a failover it follows MOVED after `failover`'s
 * delays and re-reads the slot table every CLUSTER_SLOTS_REFRESH_MS. Its offline queue, pipelining and
 * reconnecting are the cluster client's; every other option applies to each node.
 *
 * Neither service turns on ioredis's auto-pipelining (`enableAutoPipelining`): ioredis sends one
 * auto-pipeline per connection at a time, so a command queued while one is in flight waits for its
 * last reply before it is even written. Under load that wait kept each call's objects alive across
 * young collections and cost payments and the catalog more CPU than the joined writes saved
 * (docs/bench-findings.md). Commands sent together are still in flight together.
 */
export function connectRedis(
  endpoint: RedisEndpoint,
  options?: RedisOptions,
  failover?: ClusterFailoverOptions,
): RedisClient;
/** One server by URL (tools and tests). */
export function connectRedis(url: string, options?: RedisOptions): Redis;
export function connectRedis(
  endpoint: RedisEndpoint | string,
  options: RedisOptions = {},
  failover: ClusterFailoverOptions = {},
): RedisClient {
  const resp2: RedisOptions = { protocol: 2, ...options };
  if (typeof endpoint === 'string') return new Redis(endpoint, resp2);
  if (endpoint.clusterNodes.length === 0) return new Redis(endpoint.url, resp2);
  const { enableOfflineQueue, enableAutoPipelining, retryStrategy, ...nodeOptions } = resp2;
  const url = new URL(endpoint.url);
  return new Cluster(endpoint.clusterNodes, {
    enableOfflineQueue,
    enableAutoPipelining,
    ...(retryStrategy ? { clusterRetryStrategy: retryStrategy } : {}),
    scaleReads: 'master',
    slotsRefreshInterval: CLUSTER_SLOTS_REFRESH_MS,
    ...failover,
    redisOptions: {
      ...nodeOptions,
      username: url.username ? decodeURIComponent(url.username) : undefined,
      password: url.password ? decodeURIComponent(url.password) : undefined,
      tls: url.protocol === 'rediss:' ? {} : undefined,
    },
  });
}

/** Whether a client talks to a Redis Cluster (some commands must then go slot by slot). */
export function isCluster(redis: RedisClient): redis is Cluster {
  return (redis as Cluster).isCluster === true;
}

/**
 * Waits until the connection is ready; false after `timeoutMs` without it. Services start anyway and
 * keep reconnecting (a Redis down at boot is Redis down for a while, which each already survives), but
 * do not turn their first requests away only because the connection is still being made.
 *
 * On a cluster that means every primary's connection too. ioredis opens a node's connection on the
 * first command for it and, without an offline queue, refuses the commands that reach the node while it
 * is being opened with "Connection is closed." (never written, but a caller cannot tell them from one
 * that was); with no retry after a closed connection, as payments chooses, they fail. Nodes found
 * later (a failover) are opened on first use, as ioredis does: calls then fail for a moment anyway.
 */
export async function redisReady(redis: RedisClient, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  if (!(await connectionReady(redis, timeoutMs))) return false;
  if (!isCluster(redis)) return true;
  const primaries = redis.nodes('master');
  for (const node of primaries) if (node.status === 'wait') node.connect().catch(() => undefined);
  const ready = await Promise.all(primaries.map((node) => connectionReady(node, Math.max(0, deadline - Date.now()))));
  return ready.every(Boolean);
}

/** Whether one client (a server, a cluster, or one node of it) becomes ready within `timeoutMs`. */
function connectionReady(redis: RedisClient, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
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
