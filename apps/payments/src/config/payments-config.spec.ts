import { ConfigError } from '@appcat/config';
import { readPaymentsConfig } from './payments-config.js';

describe('readPaymentsConfig', () => {
  it('has a safe local default for everything', () => {
    const config = readPaymentsConfig({});
    expect(config).toMatchObject({
      databaseUrl: 'postgresql://postgres:postgres@127.0.0.1:5432/appcat',
      redis: { url: 'redis://127.0.0.1:6379', clusterNodes: [] },
      nats: { servers: ['nats://127.0.0.1:4222'] },
      unknownKeyTtlMs: 30_000,
      ledger: {
        stream: 'credit:ledger',
        shards: 1,
        group: 'ledger-flushers',
        batchSize: 500,
        blockMs: 1_000,
        flushIntervalMs: 100,
        claimIdleMs: 30_000,
      },
    });
    expect(readPaymentsConfig({}).ledger.consumer).not.toBe(config.ledger.consumer);
  });

  it('turns Redis Cluster on with REDIS_CLUSTER_NODES, with a sharded ledger', () => {
    const config = readPaymentsConfig({ REDIS_CLUSTER_NODES: 'redis-0:6379, 10.0.0.2:7001' });
    expect(config.redis.clusterNodes).toEqual([
      { host: 'redis-0', port: 6379 },
      { host: '10.0.0.2', port: 7001 },
    ]);
    expect(config.ledger.shards).toBe(12);
    expect(readPaymentsConfig({ REDIS_CLUSTER_NODES: 'redis-0:6379', LEDGER_STREAM_SHARDS: '3' }).ledger.shards).toBe(
      3,
    );
    expect(() => readPaymentsConfig({ REDIS_CLUSTER_NODES: 'redis-0' })).toThrow(/REDIS_CLUSTER_NODES/);
    expect(() => readPaymentsConfig({ LEDGER_STREAM_SHARDS: '0' })).toThrow(/LEDGER_STREAM_SHARDS/);
  });

  it('rejects URLs of the wrong kind', () => {
    expect(() =>
      readPaymentsConfig({ DATABASE_URL: 'redis://x', REDIS_URL: 'http://x', LEDGER_BATCH_SIZE: '0' }),
    ).toThrow(ConfigError);
  });
});
