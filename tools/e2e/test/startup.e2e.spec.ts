/*
 * How a built service starts (runService): the ready line, its start-up check, and a start-up that fails,
 * logged as one JSON line with the reason before the process exits 1.
 */
import { X402_EVM_NETWORKS } from '@appcat/contracts';
import { type DevFacilitator, startDevFacilitator } from '@appcat/facilitator';
import { applyMigrations } from '@appcat/payments';
import {
  createTestDatabase,
  freePort,
  type ManagedProcess,
  startNatsServer,
  startRedisServer,
  type TestDatabase,
} from '@appcat/testing';
import { jest } from '@jest/globals';
import { ServiceProcess, waitReady } from './support/service-processes.js';

jest.setTimeout(120_000);

/** The JSON lines a process printed, parsed. */
const linesOf = (service: ServiceProcess) =>
  service.output
    .join('')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { level: string; service: string; context?: string; msg: string });

describe('a service starting', () => {
  let nats: ManagedProcess;
  let redis: ManagedProcess;
  let database: TestDatabase;
  const facilitators: DevFacilitator[] = [];
  const services: ServiceProcess[] = [];
  // No payment is made: /supported needs no chain or ledger behind it.
  const facilitator = async (networks: string[], solana: boolean) => {
    const started = await startDevFacilitator({
      rpcUrl: 'http://127.0.0.1:9',
      port: 0,
      networks,
      solana: solana ? { rpcUrl: 'http://127.0.0.1:9' } : undefined,
    });
    facilitators.push(started);
    return started;
  };
  const payments = (env: Record<string, string>) => {
    const service = new ServiceProcess('payments', 'apps/payments/dist/main.js', {
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      DATABASE_URL: database.url,
      NATS_SHUTDOWN_GRACE_MS: '0',
      ...env,
    });
    services.push(service);
    return service;
  };

  beforeAll(async () => {
    [nats, redis, database] = await Promise.all([
      startNatsServer(),
      startRedisServer(),
      createTestDatabase('e2e_startup', applyMigrations),
    ]);
  });
  afterAll(async () => {
    for (const service of services) await service.kill();
    for (const started of facilitators) await started.stop();
    await Promise.all([nats?.stop(), redis?.stop()]);
    await database?.drop();
  });

  it('logs where it answers, then what its start-up check found, and is ready; SIGTERM stops it cleanly', async () => {
    const { url } = await facilitator(
      X402_EVM_NETWORKS.map((n) => n.network),
      true,
    );
    const opsPort = await freePort();
    const service = payments({ X402_FACILITATOR_URL: url, OPS_PORT: String(opsPort) });
    await waitReady(`http://127.0.0.1:${opsPort}/readyz`);
    const messages = linesOf(service)
      .filter((line) => line.context === 'payments')
      .map((line) => line.msg);
    expect(messages).toEqual([
      'payments answering on NATS',
      `x402 facilitator ${url} supports base, monad, solana, polygon, arbitrum`,
    ]);
    expect(linesOf(service).every((line) => line.service === 'payments')).toBe(true);
    expect(await service.terminate()).toMatch(/^(exit 0|SIGTERM)$/);
  });

  it('fails start-up, exit 1, naming the network when the facilitator does not support one it offers', async () => {
    const { url } = await facilitator(['eip155:8453', 'eip155:143', 'eip155:137', 'eip155:42161'], false);
    const service = payments({ X402_FACILITATOR_URL: url, OPS_PORT: '0' });
    expect(await service.ended()).toBe('exit 1');
    const errors = linesOf(service).filter((line) => line.level === 'error' && line.context === 'payments');
    expect(errors.map((line) => line.msg)).toEqual([
      `x402: the facilitator at ${url} does not support solana (solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp): its /supported has no exact scheme there; ` +
        'use a facilitator that settles it, or set X402_<NET>_PAY_TO=none to stop offering it',
    ]);
  });

  it('fails start-up, exit 1, naming every setting that is wrong', async () => {
    const service = new ServiceProcess('gateway', 'apps/gateway/dist/main.js', {
      NATS_URL: nats.url,
      PORT: 'eighty',
      GATEWAY_RPC_BATCH_MAX: '0',
    });
    services.push(service);
    expect(await service.ended()).toBe('exit 1');
    const output = service.output.join('');
    expect(output).toContain('PORT must be an integer from 0 to 65535, got "eighty"');
    expect(output).toContain('GATEWAY_RPC_BATCH_MAX must be an integer from 1 to');
  });
});
