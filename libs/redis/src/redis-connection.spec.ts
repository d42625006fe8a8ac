import { freePort, type ManagedProcess, startRedisServer } from '@appcat/testing';
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
});
