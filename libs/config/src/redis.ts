import type { EnvReader } from './env-reader.js';

/** One node a Redis Cluster client starts from; it learns the rest of the cluster from it. */
export interface RedisClusterNode {
  host: string;
  port: number;
}

/** Where a service's Redis is: one server (the default) or a Redis Cluster. */
export interface RedisEndpoint {
  /** The one server; with a cluster, only its credentials and TLS (rediss:) are used. */
  url: string;
  /** Seed nodes of a Redis Cluster (REDIS_CLUSTER_NODES); empty for one server. */
  clusterNodes: RedisClusterNode[];
}

export function readRedisEndpoint(env: EnvReader, fallbackUrl = 'redis://127.0.0.1:6379'): RedisEndpoint {
  const url = env.url('REDIS_URL', fallbackUrl, ['redis:', 'rediss:']);
  const clusterNodes: RedisClusterNode[] = [];
  for (const entry of (env.optionalString('REDIS_CLUSTER_NODES') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const match = /^([^\s:/]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(entry);
    const port = match ? Number(match[2]) : 0;
    if (!match || port < 1 || port > 65_535) {
      env.fail(`REDIS_CLUSTER_NODES must be host:port entries separated by commas, got ${JSON.stringify(entry)}`);
      continue;
    }
    clusterNodes.push({ host: match[1].replace(/^\[|\]$/g, ''), port });
  }
  return { url, clusterNodes };
}
