import { NatsClusterHarness, RedisClusterHarness } from '@appcat/testing';
import type { INestMicroservice } from '@nestjs/common';
import { createPaymentsApp } from '../../src/app.js';
import { PAYMENTS_CLUSTER_FAILOVER } from '../../src/payments-resources.js';
import { type PaymentsConfig } from '../../src/config/payments-config.js';
import { connectRedis, type RedisClient } from '@appcat/redis';
import { NatsRequester } from '../support/nats-requester.js';
import { testConfig } from '../support/test-config.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

/** A guard against a close that never ends (it would keep every server below alive), not a measure of speed. */
const CLOSE_DEADLINE_MS = 60_000;

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

/**
 * Starts everything, or, if any part fails to start, stops what did start before rethrowing: a server
 * left running keeps the test runner from ever exiting.
 */
export async function startPaymentsOnClusters(
  suite: string,
  replicas: number,
  env: Record<string, string> = {},
): Promise<PaymentsOnClusters> {
  const [redisStart, natsStart, dbStart] = await Promise.allSettled([
    RedisClusterHarness.start(),
    NatsClusterHarness.start(3),
    createTestDatabase(suite),
  ]);
  const redisCluster = redisStart.status === 'fulfilled' ? redisStart.value : undefined;
  const natsCluster = natsStart.status === 'fulfilled' ? natsStart.value : undefined;
  const db = dbStart.status === 'fulfilled' ? dbStart.value : undefined;
  const apps: INestMicroservice[] = [];
  const clients: NatsRequester[] = [];
  let redis: RedisClient | undefined;

  const stop = async () => {
    const failures: string[] = [];
    const step = async (what: string, action: () => Promise<unknown>) => {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise(
        (_, reject) =>
          (timer = setTimeout(() => reject(new Error(`not done after ${CLOSE_DEADLINE_MS} ms`)), CLOSE_DEADLINE_MS)),
      );
      try {
        await Promise.race([action(), deadline]);
      } catch (error) {
        failures.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        clearTimeout(timer);
      }
    };
    // Every step runs whatever the one before did: the servers are killed even if an app did not close.
    await step('NATS clients', () => Promise.all(clients.map((client) => client.close())));
    await step('payments replicas', () => Promise.all(apps.map((app) => app.close())));
    redis?.disconnect();
    await step('servers', () => Promise.all([redisCluster?.stop(), natsCluster?.stop()]));
    await step('database', async () => db?.drop());
    if (failures.length > 0) throw new Error(`stopping the clusters: ${failures.join('; ')}`);
  };

  try {
    for (const started of [redisStart, natsStart, dbStart]) if (started.status === 'rejected') throw started.reason;
    const settings = {
      REDIS_CLUSTER_NODES: redisCluster!.nodesSetting,
      LEDGER_FLUSH_INTERVAL_MS: '50',
      REDIS_COMMAND_TIMEOUT_MS: '1000',
      // After a failover the promoted replica may hold ledger entries pending under a consumer whose read
      // or acknowledgement never reached it; a flusher takes them over after this (30 s by default),
      // which reconciliation waits for.
      LEDGER_CLAIM_IDLE_MS: '3000',
      ...env,
    };
    const urls = { nats: natsCluster!.url, redis: 'redis://127.0.0.1:6379', database: db!.url };
    // Each replica reads its config separately (its own ledger consumer name), as separate processes would.
    for (let i = 0; i < replicas; i += 1) {
      const app = await createPaymentsApp(testConfig(urls, settings), { logger: ['error'] });
      apps.push(app);
      await app.listen();
    }
    const all = natsCluster!.urls;
    for (const url of all) clients.push(await NatsRequester.connect([url, ...all.filter((other) => other !== url)]));
    const config = testConfig(urls, settings);
    redis = connectRedis(config.redis, {}, PAYMENTS_CLUSTER_FAILOVER);
    return { redisCluster: redisCluster!, natsCluster: natsCluster!, db: db!, redis, apps, config, clients, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
