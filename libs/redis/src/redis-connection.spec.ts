import { freePort, type ManagedProcess, RedisClusterHarness, startRedisServer } from '@appcat/testing';
import type { Cluster } from 'ioredis';
import { connectRedis, isCluster, redisReady, type RedisClient } from './redis-connection.js';

describe('connectRedis', () => {
  let server: ManagedProcess;
  const opened: RedisClient[] = [];
  const open = <T extends RedisClient>(client: T): T => {
    client.on('error', () => undefined);
    opened.push(client);
    return client;
  };

  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const client of opened) client.disconnect();
    await server.stop();
  });

  it('speaks RESP2 to one server, with the options the service chose', async () => {
    const redis = open(
      connectRedis(
        { url: server.url, clusterNodes: [] },
        { connectionName: 'redis-lib-test', commandTimeout: 500, disconnectTimeout: 200 },
      ),
    );
    expect(isCluster(redis)).toBe(false);
    const info = (await redis.call('CLIENT', 'INFO')) as string;
    expect(info).toMatch(/\bname=redis-lib-test\b/);
    expect(info).toMatch(/\bresp=2\b/);
    // RESP2: a stream read is nested arrays, not a map.
    await redis.xadd('s', '*', 'f', 'v');
    expect(await redis.xrange('s', '-', '+')).toEqual([[expect.any(String), ['f', 'v']]]);
  });

  it('waits until a connection is ready, and gives up after the timeout when nothing answers', async () => {
    const up = open(connectRedis(server.url, { disconnectTimeout: 200 }));
    expect(await redisReady(up, 5_000)).toBe(true);
    expect(await redisReady(up, 1)).toBe(true);
    const down = open(
      connectRedis(`redis://127.0.0.1:${await freePort()}`, { retryStrategy: () => 1_000, disconnectTimeout: 200 }),
    );
    expect(await redisReady(down, 200)).toBe(false);
    expect(down.listenerCount('ready')).toBe(0);
  });

  it('gives a cluster client the offline queue, pipelining, reconnecting and failover delays, and each node the rest', async () => {
    const port = await freePort();
    const retryStrategy = (attempt: number) => attempt * 10;
    const cluster = open(
      connectRedis(
        { url: 'rediss://user%40x:p%3Ass@127.0.0.1:6379', clusterNodes: [{ host: '127.0.0.1', port }] },
        {
          connectionName: 'node',
          commandTimeout: 250,
          maxRetriesPerRequest: 1,
          enableOfflineQueue: false,
          enableAutoPipelining: true,
          retryStrategy,
        },
        { retryDelayOnFailover: 200, retryDelayOnClusterDown: 300 },
      ),
    ) as Cluster;
    expect(isCluster(cluster)).toBe(true);
    expect(cluster.options).toMatchObject({
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      clusterRetryStrategy: retryStrategy,
      scaleReads: 'master',
      slotsRefreshInterval: 1_000,
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 300,
    });
    expect(cluster.options.redisOptions).toEqual({
      protocol: 2,
      connectionName: 'node',
      commandTimeout: 250,
      maxRetriesPerRequest: 1,
      username: 'user@x',
      password: 'p:ss',
      tls: {},
    });
  });

  describe('on a Redis Cluster', () => {
    let redisCluster: RedisClusterHarness;
    beforeAll(async () => {
      redisCluster = await RedisClusterHarness.start();
    }, 180_000);
    afterAll(async () => {
      await redisCluster?.stop();
    });

    it('is ready only once every primary is connected, so commands sent at once then are none refused', async () => {
      // Without an offline queue, ioredis refuses a command whose node connection is still being opened
      // ("Connection is closed."), and opens a node's connection only on the first command for it. With
      // no retry on a closed connection (payments' choice), the refusal reaches the caller.
      const cluster = open(
        connectRedis(
          { url: 'redis://127.0.0.1:6379', clusterNodes: redisCluster.seeds },
          { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 5_000 },
          { retryDelayOnFailover: 0 },
        ),
      ) as Cluster;
      expect(await redisReady(cluster, 30_000)).toBe(true);
      const primaries = cluster.nodes('master');
      expect(primaries).toHaveLength(3);
      expect(primaries.map((node) => node.status)).toEqual(['ready', 'ready', 'ready']);
      // Four keys per primary, all sent in one turn.
      const keys = Array.from({ length: 48 }, (_, i) => `k${i}`);
      const results = await Promise.allSettled(keys.map((key) => cluster.set(key, key)));
      expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
      expect(await redisReady(cluster, 1)).toBe(true);
    }, 60_000);
  });
});
