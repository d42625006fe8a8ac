/*
 * Payments' start-up check of the facilitator, against the real dev facilitator: not ready until its
 * /supported has been read (retried while it is down), and a configured network it does not support
 * fails start-up with an error naming the network and the facilitator.
 */
import { X402_EVM_NETWORKS, x402Network } from '@appcat/contracts';
import { startDevFacilitator, type DevFacilitator } from '@appcat/facilitator';
import { freePort, type ManagedProcess, startRedisServer, TEST_POSTGRES_URL } from '@appcat/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { readPaymentsConfig } from '../src/config/payments-config.js';
import { x402Payments } from './support/x402-payments.js';

const EVM_NETWORKS = X402_EVM_NETWORKS.map((n) => n.network);
const SOLANA = x402Network('solana').network;

describe('payments checks the facilitator at start-up', () => {
  let redisServer: ManagedProcess;
  let redis: Redis;
  // No payment settles here, so nothing is recorded: the settlement records' pool is never asked.
  let pool: pg.Pool;
  const started: DevFacilitator[] = [];
  // No payment is made: /supported needs no chain or ledger behind it.
  const facilitator = async (port: number, networks: string[], solana = true) => {
    const f = await startDevFacilitator({
      rpcUrl: 'http://127.0.0.1:9',
      port,
      networks,
      solana: solana ? { rpcUrl: 'http://127.0.0.1:9' } : undefined,
    });
    started.push(f);
    return f;
  };
  const payments = (url: string) =>
    x402Payments(readPaymentsConfig({ X402_FACILITATOR_URL: url }), { redis, pool }).check;

  beforeAll(async () => {
    redisServer = await startRedisServer();
    redis = new Redis(redisServer.url);
    pool = new pg.Pool({ connectionString: `${TEST_POSTGRES_URL}/postgres`, max: 1 });
  });
  afterAll(async () => {
    for (const f of started) await f.stop();
    redis.disconnect();
    await pool.end();
    await redisServer.stop();
  });

  it('passes when the facilitator supports every configured network', async () => {
    const x402 = payments((await facilitator(0, EVM_NETWORKS)).url);
    expect(x402.passed).toBe(false);
    await x402.run(50);
    expect(x402.passed).toBe(true);
  });

  it('fails naming the network and the facilitator when a configured network is not supported', async () => {
    const { url } = await facilitator(0, ['eip155:8453', 'eip155:137'], false);
    const x402 = payments(url);
    await expect(x402.run(50)).rejects.toThrow(
      `x402: the facilitator at ${url} does not support monad (eip155:143), solana (${SOLANA}), arbitrum (eip155:42161)`,
    );
    expect(x402.passed).toBe(false);
  });

  it('keeps retrying while the facilitator is down, and passes once it answers', async () => {
    const port = await freePort();
    const x402 = payments(`http://127.0.0.1:${port}`);
    let settled = false;
    const check = x402.run(50).finally(() => (settled = true));
    // Several attempts fail against the closed port; the check neither passes nor gives up.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(settled).toBe(false);
    expect(x402.passed).toBe(false);
    await facilitator(port, EVM_NETWORKS);
    await check;
    expect(x402.passed).toBe(true);
  });
});
