/*
 * The built services as real processes, two replicas each, under a steady load of credit-paid calls.
 * Each kind gets a SIGTERM in turn while the load runs. Afterwards: every call that was charged was
 * answered with its data (no charged request dropped), Postgres holds exactly one debit per answered
 * call, and no log line of any process contains an API key or a payment signature.
 */
import { type AdminKeyCreated, parseUsd, Subject, X402_EVM_NETWORKS } from '@appcat/contracts';
import { NatsRpcClient } from '@appcat/microservice';
import { type DevFacilitator, startDevFacilitator } from '@appcat/facilitator';
import { applyMigrations } from '@appcat/payments';
import { startStoreEmulator, type StoreEmulator } from '@appcat/store-emulator';
import {
  createTestDatabase,
  freePort,
  type ManagedProcess,
  startNatsServer,
  startRedisServer,
  type TestDatabase,
  testPool,
} from '@appcat/testing';
import { jest } from '@jest/globals';
import { ServiceProcess, waitReady } from './support/service-processes.js';

jest.setTimeout(180_000);

describe('graceful shutdown under load, and logs without secrets', () => {
  let nats: ManagedProcess;
  let redis: ManagedProcess;
  let database: TestDatabase;
  let emulator: StoreEmulator;
  let admin: NatsRpcClient;
  let facilitator: DevFacilitator;
  const services: ServiceProcess[] = [];
  const gateways: { process: ServiceProcess; url: string }[] = [];

  beforeAll(async () => {
    [nats, redis, database, emulator] = await Promise.all([
      startNatsServer(),
      startRedisServer(),
      createTestDatabase('e2e_shutdown', applyMigrations),
      startStoreEmulator({ port: 0 }),
    ]);
    // Payments is ready only once a facilitator's /supported lists its networks (Solana too, offered by
    // default); no payment is made here, so no chain or ledger.
    facilitator = await startDevFacilitator({
      rpcUrl: 'http://127.0.0.1:9',
      port: 0,
      networks: X402_EVM_NETWORKS.map((n) => n.network),
      solana: { rpcUrl: 'http://127.0.0.1:9' },
    });
    const common = {
      X402_FACILITATOR_URL: facilitator.url,
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      DATABASE_URL: database.url,
      ITUNES_BASE_URL: emulator.url,
      APPLE_WEB_BASE_URL: emulator.url,
      APPLE_AMP_API_BASE_URL: emulator.url,
      // Bounds a loaded machine must not reach while nothing is wrong: the drain of a stopping
      // replica's in-flight requests, a NATS round trip, an upstream call.
      NATS_SHUTDOWN_GRACE_MS: '10000',
      NATS_REQUEST_TIMEOUT_MS: '30000',
      UPSTREAM_TIMEOUT_MS: '30000',
      LEDGER_BLOCK_MS: '100',
      LOG_LEVEL: 'debug',
      ITUNES_RATE_PER_MIN: '0',
      APPLE_WEB_RATE_PER_MIN: '0',
      APPLE_AMP_API_RATE_PER_MIN: '0',
      APPLE_CATALOGUE_RATE_PER_MIN: '0',
    };
    const readiness: string[] = [];
    for (const kind of ['payments', 'catalog'] as const) {
      for (let i = 0; i < 2; i++) {
        const opsPort = await freePort();
        services.push(
          new ServiceProcess(`${kind}-${i}`, `apps/${kind}/dist/main.js`, { ...common, OPS_PORT: String(opsPort) }),
        );
        readiness.push(`http://127.0.0.1:${opsPort}/readyz`);
      }
    }
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const gateway = new ServiceProcess(`gateway-${i}`, 'apps/gateway/dist/main.js', {
        ...common,
        PORT: String(port),
        OPS_PORT: '0',
        SHUTDOWN_DELAY_MS: '300',
      });
      services.push(gateway);
      gateways.push({ process: gateway, url: `http://127.0.0.1:${port}` });
      readiness.push(`http://127.0.0.1:${port}/readyz`);
    }
    await Promise.all(readiness.map((url) => waitReady(url)));
    admin = await NatsRpcClient.connect(
      { servers: [nats.url], requestTimeoutMs: 30_000, shutdownGraceMs: 0 },
      'e2e-admin',
    );
  });

  afterAll(async () => {
    await admin?.close();
    for (const service of services) await service.kill();
    await emulator?.close();
    await facilitator?.stop();
    await Promise.all([nats?.stop(), redis?.stop()]);
    await database?.drop();
  });

  it('drops no charged request when payments, catalog and a gateway are stopped in turn', async () => {
    const created = await admin.request<AdminKeyCreated>(
      Subject.AdminKeysCreate,
      { credit: parseUsd('50')!.toString() },
      { service: 'payments' },
    );
    const outcomes = { ok: 0, refusedConnection: 0, other: [] as string[] };
    let running = true;
    const worker = async (index: number) => {
      let n = 0;
      while (running) {
        // Prefer the gateway that stays up; a stopped gateway's refusals were never charged.
        const gateway = gateways[(index + n++) % 2];
        try {
          const res = await fetch(`${gateway.url}/api/apps/284882215`, {
            headers: { authorization: `Bearer ${created.key}` },
          });
          if (res.status === 200) outcomes.ok += 1;
          else outcomes.other.push(`${res.status} ${((await res.json()) as { message: string }).message}`);
        } catch {
          outcomes.refusedConnection += 1;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, (_, i) => worker(i)));
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    // Each step waits for calls served rather than for time: a loaded machine serves fewer a second.
    const served = async (more: number) => {
      const target = outcomes.ok + more;
      for (const deadline = Date.now() + 60_000; outcomes.ok < target && Date.now() < deadline;) await pause(20);
    };

    await served(30);
    expect(await services.find((s) => s.name === 'payments-0')!.terminate()).toMatch(/^(exit 0|SIGTERM)$/);
    await served(30);
    expect(await services.find((s) => s.name === 'catalog-0')!.terminate()).toMatch(/^(exit 0|SIGTERM)$/);
    await served(30);
    expect(await gateways[0].process.terminate()).toMatch(/^(exit 0|SIGTERM)$/);
    await served(30);
    running = false;
    await load;

    expect(outcomes.other).toEqual([]);
    expect(outcomes.ok).toBeGreaterThan(100);
    // Every debit is an answered call, and every answered call one debit.
    const pool = testPool(database.url, 1);
    try {
      let spent = 0n;
      for (let i = 0; i < 300 && spent !== BigInt(outcomes.ok) * 3000n; i++) {
        await pause(100);
        const { rows } = await pool.query<{ spent_micros: string }>('SELECT spent_micros FROM api_keys WHERE id = $1', [
          created.id,
        ]);
        spent = BigInt(rows[0].spent_micros);
      }
      expect(spent).toBe(BigInt(outcomes.ok) * 3000n);
      const { rows } = await pool.query<{ n: string }>(
        'SELECT count(*) AS n FROM credit_debits WHERE api_key_id = $1',
        [created.id],
      );
      expect(Number(rows[0].n)).toBe(outcomes.ok);
    } finally {
      await pool.end();
    }

    // Logs: JSON lines, and no key or signature anywhere in any of them.
    const everything = services.flatMap((s) => s.output).join('');
    expect(everything).not.toContain(created.key);
    expect(everything).not.toContain(created.key.slice(3));
    const lines = everything.split('\n').filter((line) => line.trim() !== '');
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });
});
