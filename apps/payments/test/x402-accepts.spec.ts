/*
 * The accepts lists payments builds with @x402/core from the network table, against a facilitator
 * whose /supported we choose (the dev facilitator is EVM-only, so Solana's entry is checked here).
 */
import { ErrorCode } from '@appcat/contracts';
import { type ManagedProcess, startRedisServer, TEST_POSTGRES_URL } from '@appcat/testing';
import { createServer, type Server } from 'node:http';
import { Redis } from 'ioredis';
import pg from 'pg';
import { readPaymentsConfig } from '../src/config/payments-config.js';
import { x402Payments } from './support/x402-payments.js';

const FEE_PAYER = 'FeePayer1111111111111111111111111111111111';
const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

describe('x402 accepts lists', () => {
  let redisServer: ManagedProcess;
  let redis: Redis;
  // Only offers are built here, so nothing is recorded: the settlement records' pool is never asked.
  let pool: pg.Pool;
  let facilitator: Server;
  let facilitatorUrl: string;
  let supported: string[];

  beforeAll(async () => {
    redisServer = await startRedisServer();
    redis = new Redis(redisServer.url);
    pool = new pg.Pool({ connectionString: `${TEST_POSTGRES_URL}/postgres`, max: 1 });
    facilitator = createServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      if (request.url !== '/supported') return response.writeHead(404).end('{}');
      const kinds = supported.map((network) => ({
        x402Version: 2,
        scheme: 'exact',
        network,
        ...(network.startsWith('solana:') ? { extra: { feePayer: FEE_PAYER } } : {}),
      }));
      response.end(JSON.stringify({ kinds, extensions: [], signers: {} }));
    });
    await new Promise<void>((resolve) => facilitator.listen(0, '127.0.0.1', () => resolve()));
    facilitatorUrl = `http://127.0.0.1:${(facilitator.address() as { port: number }).port}`;
  });

  afterAll(async () => {
    redis.disconnect();
    await pool.end();
    await new Promise((resolve) => facilitator.close(resolve));
    await redisServer.stop();
  });

  const payments = (env: Record<string, string> = {}) =>
    x402Payments(
      readPaymentsConfig({
        X402_FACILITATOR_URL: facilitatorUrl,
        X402_MONAD_PAY_TO: '0x00000000000000000000000000000000000000a1',
        X402_SOLANA_PAY_TO: 'PayTo11111111111111111111111111111111111111',
        X402_POLYGON_PAY_TO: '0x00000000000000000000000000000000000000a2',
        X402_ARBITRUM_PAY_TO: '0x00000000000000000000000000000000000000a3',
        ...env,
      }),
      { redis, pool },
    ).offers;

  it('lists Base first, then Monad and Solana; the extended set adds Polygon and Arbitrum', async () => {
    supported = ['eip155:8453', 'eip155:143', SOLANA, 'eip155:137', 'eip155:42161'];
    const x402 = payments();
    const standard = await x402.accepts({ price: '3000', networks: 'standard' });
    expect(standard.map((a) => a.network)).toEqual(['eip155:8453', 'eip155:143', SOLANA]);
    expect(standard[0]).toMatchObject({
      scheme: 'exact',
      amount: '3000',
      asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      payTo: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      extra: { name: 'USD Coin', version: '2' },
    });
    expect(standard[1]).toMatchObject({
      asset: '0x754704Bc059F8C67012fEd69BC8A327a5aafb603',
      extra: { name: 'USDC', version: '2' },
    });
    expect(standard[2]).toMatchObject({
      asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
      extra: { feePayer: FEE_PAYER },
    });
    const extended = await x402.accepts({ price: '3000', networks: 'extended' });
    expect(extended.map((a) => a.network)).toEqual(['eip155:8453', 'eip155:143', SOLANA, 'eip155:137', 'eip155:42161']);
    // No entry declares a payment flow: x402's default one, checked before the call and settled after it.
    expect(extended.map((a) => (a.extra as { paymentFlow?: string }).paymentFlow)).toEqual(Array(5).fill(undefined));
    expect((await x402.accepts({ price: '5000000', networks: 'standard' })).map((a) => a.amount)).toEqual([
      '5000000',
      '5000000',
      '5000000',
    ]);
  });

  it('leaves out a network the facilitator does not support', async () => {
    supported = ['eip155:8453'];
    expect((await payments().accepts({ price: '3000', networks: 'extended' })).map((a) => a.network)).toEqual([
      'eip155:8453',
    ]);
  });

  it('answers FACILITATOR_UNREACHABLE while the facilitator cannot be reached', async () => {
    const x402 = payments({ X402_FACILITATOR_URL: 'http://127.0.0.1:9' });
    await expect(x402.accepts({ price: '3000', networks: 'standard' })).rejects.toMatchObject({
      code: ErrorCode.FacilitatorUnreachable,
    });
  });

  it('refuses to start when no standard network has a payTo, or with the local payTo on a real facilitator', () => {
    expect(() =>
      readPaymentsConfig({
        X402_BASE_PAY_TO: 'none',
        X402_MONAD_PAY_TO: 'none',
        X402_SOLANA_PAY_TO: 'none',
        X402_POLYGON_PAY_TO: '0x00000000000000000000000000000000000000a2',
      }),
    ).toThrow(/no network of the standard set/);
    expect(() =>
      readPaymentsConfig({ X402_BASE_PAY_TO: 'none', X402_MONAD_PAY_TO: '0x00000000000000000000000000000000000000a2' }),
    ).not.toThrow();
    expect(() => readPaymentsConfig({ X402_FACILITATOR_URL: 'https://facilitator.example.com' })).toThrow(
      /X402_BASE_PAY_TO is the local development address/,
    );
    // Every network has a local payTo by default (Solana the ledger's), and each is refused with a real facilitator.
    const real = {
      X402_FACILITATOR_URL: 'https://facilitator.example.com',
      X402_BASE_PAY_TO: '0x00000000000000000000000000000000000000b1',
    };
    expect(() => readPaymentsConfig(real)).toThrow(/X402_MONAD_PAY_TO is the local development address/);
    expect(() => readPaymentsConfig({ ...real, X402_MONAD_PAY_TO: 'none' })).toThrow(
      /X402_SOLANA_PAY_TO is the local development address/,
    );
    expect(() =>
      readPaymentsConfig({
        ...real,
        X402_MONAD_PAY_TO: 'none',
        X402_SOLANA_PAY_TO: 'none',
        X402_POLYGON_PAY_TO: 'none',
      }),
    ).toThrow(/X402_ARBITRUM_PAY_TO is the local/);
    expect(() =>
      readPaymentsConfig({
        ...real,
        X402_MONAD_PAY_TO: 'none',
        X402_SOLANA_PAY_TO: 'PayTo11111111111111111111111111111111111111',
        X402_POLYGON_PAY_TO: 'none',
        X402_ARBITRUM_PAY_TO: 'none',
      }),
    ).not.toThrow();
    expect(readPaymentsConfig({}).x402.networks.map((n) => [n.name, n.payTo])).toEqual([
      ['base', '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'],
      ['monad', '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'],
      ['solana', '3YQzpW2SNGU13XRrDjbahJPGv8ttJTWyqEuH55hmh2ad'],
      ['polygon', '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'],
      ['arbitrum', '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'],
    ]);
    expect(() => readPaymentsConfig({ X402_BASE_PAY_TO: 'nope' })).toThrow(/X402_BASE_PAY_TO must be a 0x EVM address/);
  });
});
