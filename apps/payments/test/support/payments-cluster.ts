import { type ManagedProcess, startNatsServer, startRedisServer } from '@appcat/testing';
import type { INestMicroservice } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { createPaymentsApp } from '../../src/app.js';
import type { PaymentsConfig } from '../../src/config/payments-config.js';
import { connectRedis } from '@appcat/redis';
import { NatsRequester } from './nats-requester.js';
import { testConfig } from './test-config.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/** Private NATS, Redis and Postgres database, and `replicas` payments apps sharing them. */
export interface PaymentsCluster {
  nats: ManagedProcess;
  redisServer: ManagedProcess;
  db: TestDatabase;
  redis: Redis;
  apps: INestMicroservice[];
  config: PaymentsConfig;
  client: NatsRequester;
  stop(): Promise<void>;
}

export async function startPaymentsCluster(
  suite: string,
  replicas: number,
  env: Record<string, string> = {},
): Promise<PaymentsCluster> {
  const [nats, redisServer, db] = await Promise.all([startNatsServer(), startRedisServer(), createTestDatabase(suite)]);
  const config = testConfig({ nats: nats.url, redis: redisServer.url, database: db.url }, env);
  const apps: INestMicroservice[] = [];
  // Each replica reads its config separately, as separate processes would (own ledger consumer name).
  for (let i = 0; i < replicas; i += 1) {
    const app = await createPaymentsApp(testConfig({ nats: nats.url, redis: redisServer.url, database: db.url }, env), {
      logger: ['error'],
    });
    await app.listen();
    apps.push(app);
  }
  const client = await NatsRequester.connect(nats.url);
  const redis = connectRedis(redisServer.url);
  return {
    nats,
    redisServer,
    db,
    redis,
    apps,
    config,
    client,
    stop: async () => {
      await client.close();
      await Promise.all(apps.map((app) => app.close()));
      redis.disconnect();
      await Promise.all([nats.stop(), redisServer.stop()]);
      await db.drop();
    },
  };
}
