import { type CatalogQuery } from '@appcat/contracts';
import { startStoreEmulator, type StoreEmulator, REFERENCE_IDS } from '@appcat/store-emulator';
import { RedisClusterHarness } from '@appcat/testing';
import { jest } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { createCatalogApp } from '../../src/catalog-app.js';
import { catalogControllerFor } from '../../src/catalog.controller.js';
import { configFor, decoded, type DecodedReply } from '../support.js';

// A guard against a hang: the harness's own waits end on their conditions (deadlines of 120 s).
jest.setTimeout(300_000);

const facebook = (country: string): CatalogQuery => ({ route: 'apps.get', appId: String(REFERENCE_IDS.app), country });

/**
 * Two catalog replicas sharing a 3-primary Redis Cluster: a resource's entry, lock and failure memo share
 * a slot, so the cache scripts run (no CROSSSLOT) and one upstream call still serves both replicas; a
 * killed primary is replaced by its replica and the cache keeps working.
 */
describe('catalog on Redis Cluster', () => {
  let cluster: RedisClusterHarness;
  let emulator: StoreEmulator;
  const replicas: INestMicroservice[] = [];

  beforeAll(async () => {
    // One after the other, so that if one fails to start afterAll still stops the other: a server left
    // running keeps jest from ever exiting.
    cluster = await RedisClusterHarness.start();
    emulator = await startStoreEmulator();
    const config = configFor(emulator.url, {
      // No NATS needed: the replicas' controllers are called directly.
      NATS_URL: 'nats://127.0.0.1:1',
      REDIS_CLUSTER_NODES: cluster.nodesSetting,
      ITUNES_RATE_PER_MIN: '0',
      APPLE_WEB_RATE_PER_MIN: '0',
      APPLE_AMP_API_RATE_PER_MIN: '0',
      CATALOG_REDIS_COMMAND_TIMEOUT_MS: '1000',
    });
    for (let i = 0; i < 2; i++) {
      const replica = await createCatalogApp(config, { logger: ['error'] });
      await replica.init();
      replicas.push(replica);
    }
  });

  afterAll(async () => {
    const closed = await Promise.allSettled([...replicas.map((replica) => replica.close()), emulator?.close()]);
    await cluster?.stop();
    for (const result of closed) if (result.status === 'rejected') throw result.reason;
  });

  const via = async (replica: number, query: CatalogQuery): Promise<DecodedReply> =>
    decoded(
      (await replicas[replica].get(catalogControllerFor('apple')).fetch({ query, requestId: randomUUID() })).toValue(),
    );

  it('one upstream call per resource across replicas, for resources on every primary', async () => {
    const countries = ['us', 'gb', 'fr', 'de', 'jp', 'it', 'es', 'ca', 'au'];
    emulator.addFault({ match: { endpoint: 'lookup' }, delayMs: 200 });
    const replies = await Promise.all(
      countries.flatMap((country) => [via(0, facebook(country)), via(1, facebook(country))]),
    );
    expect(replies.filter((reply) => reply.source === 'upstream')).toHaveLength(countries.length);
    expect(emulator.stats().byEndpoint.lookup).toBe(countries.length);
    emulator.clearFaults();
  });

  it('keeps caching after a primary is killed and its replica took over', async () => {
    const [victim] = await cluster.primaryPorts();
    await cluster.kill(victim);
    await cluster.waitUntilHealthy();
    emulator.resetStats();
    const countries = ['nl', 'se', 'no', 'dk', 'fi', 'pl'];
    for (const country of countries) expect((await via(0, facebook(country))).source).toBe('upstream');
    for (const country of countries) expect((await via(1, facebook(country))).source).toBe('cache');
    expect(emulator.stats().requests).toBe(countries.length);
  });
});
