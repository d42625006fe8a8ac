import { type ManagedProcess, startNatsServer, startRedisServer, freePort } from '@appcat/testing';
import type { INestMicroservice } from '@nestjs/common';
import { createPaymentsApp } from '../src/app.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';
import { eventually, testConfig } from './support/test-config.js';
import { type DevFacilitator, startDevFacilitator } from '@appcat/facilitator';
import { X402_EVM_NETWORKS } from '@appcat/contracts';

describe('payments ops port', () => {
  let nats: ManagedProcess;
  let redis: ManagedProcess;
  let database: TestDatabase;
  let app: INestMicroservice;
  let base: string;
  let facilitator: DevFacilitator;

  beforeAll(async () => {
    [nats, redis, database] = await Promise.all([startNatsServer(), startRedisServer(), createTestDatabase('ops')]);
    // The real dev facilitator, listing every local EVM network (its /supported needs no chain).
    // No payment is made: /supported needs no chain or ledger behind it.
    facilitator = await startDevFacilitator({
      rpcUrl: 'http://127.0.0.1:9',
      port: 0,
      networks: X402_EVM_NETWORKS.map((n) => n.network),
      solana: { rpcUrl: 'http://127.0.0.1:9' },
    });
    const port = await freePort();
    app = await createPaymentsApp(
      testConfig(
        { nats: nats.url, redis: redis.url, database: database.url },
        { OPS_PORT: String(port), X402_FACILITATOR_URL: facilitator.url },
      ),
      { logger: false },
    );
    await app.listen();
    base = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await app.close();
    await facilitator.stop();
    await Promise.all([nats.stop(), redis.stop()]);
    await database.drop();
  });

  it('is ready while NATS, Redis and Postgres answer and the facilitator has been checked, and says which one fails', async () => {
    const ready = await eventually(
      () => fetch(`${base}/readyz`),
      (response) => response.status === 200,
    );
    expect(await ready.json()).toEqual({
      status: 200,
      message: 'ok',
      data: { checks: { nats: 'ok', redis: 'ok', postgres: 'ok', facilitator: 'ok' } },
    });
    await redis.kill();
    const unready = await fetch(`${base}/readyz`);
    expect(unready.status).toBe(503);
    const body = (await unready.json()) as { data: { checks: Record<string, string> } };
    expect(body.data.checks.redis).toMatch(/^failing/);
    expect(body.data.checks.postgres).toBe('ok');
  });

  it('exposes Prometheus metrics', async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toMatch(/appcat_credit_debits_total/);
    expect(text).toMatch(/appcat_ledger_flush_lag_seconds/);
    expect(text).toMatch(/service="payments"/);
  });
});
