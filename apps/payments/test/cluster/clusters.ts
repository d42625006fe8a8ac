import { NatsClusterHarness, RedisClusterHarness } from '@appcat/testing';
import type { INestMicroservice } from '@nestjs/common';
import { createPaymentsApp } from '../../src/app.js';
import { type PaymentsConfig } from '../../src/config/payments-config.js';
import { connectRedis, type RedisClient } from '../../src/database/redis.js';
import { NatsRequester } from '../support/nats-requester.js';
import { testConfig } from '../support/test-config.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

/** Payments replicas on a private 3-primary Redis Cluster and a 3-server NATS cluster, with their own database. */
export interface PaymentsOnClusters {
  redisCluster: RedisClusterHarness;
  natsCluster: NatsClusterHarness;
  db: TestDatabase;
  /** A cluster client of the test's own. */
  redis: RedisClient;
  apps: INestMicroservice[];
  config: PaymentsConfig;
  /** One requester per NATS server, so a server's death is felt by some callers only. */
  clients: NatsRequester[];
  stop(): Promise<void>;
}

export async function startPaymentsOnClusters(suite: string, replicas: number, env: Record<string, string> = {}): Promise<PaymentsOnClusters> {
  const [redisCluster, natsCluster, db] = await Promise.all([RedisClusterHarness.start(), NatsClusterHarness.start(3), createTestDatabase(suite)]);
  const settings = { REDIS_CLUSTER_NODES: redisCluster.nodesSetting, LEDGER_FLUSH_INTERVAL_MS: '50', REDIS_COMMAND_TIMEOUT_MS: '1000', ...env };
  const config = testConfig({ nats: natsCluster.url, redis: 'redis://127.0.0.1:6379', database: db.url }, settings);
  const apps: INestMicroservice[] = [];
  for (let i = 0; i < replicas; i += 1) {
    // Each replica reads its config separately (its own ledger consumer name), as separate processes would.
    apps.push(await createPaymentsApp(testConfig({ nats: natsCluster.url, redis: 'redis://127.0.0.1:6379', database: db.url }, settings), { logger: ['error'] }));
  }
  const clients = await Promise.all(natsCluster.urls.map((url) => NatsRequester.connect([url, ...natsCluster.urls.filter((other) => other !== url)])));
  const redis = connectRedis(config.redis);
  return {
    redisCluster,
    natsCluster,
    db,
    redis,
    apps,
    config,
    clients,
    stop: async () => {
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
      await Promise.all(apps.map((app) => app.close()));
      redis.disconnect();
      await Promise.all([redisCluster.stop(), natsCluster.stop()]);
      await db.drop();
    },
  };
}
