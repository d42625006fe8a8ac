import { ConfigError } from '@appcat/config';
import { readPaymentsConfig } from './payments-config.js';

describe('readPaymentsConfig', () => {
  it('has a safe local default for everything', () => {
    const config = readPaymentsConfig({});
    expect(config).toMatchObject({
      databaseUrl: 'postgresql://postgres:postgres@127.0.0.1:5432/appcat',
      redisUrl: 'redis://127.0.0.1:6379',
      nats: { servers: ['nats://127.0.0.1:4222'] },
      unknownKeyTtlMs: 30_000,
      ledger: { stream: 'credit:ledger', group: 'ledger-flushers', batchSize: 500, blockMs: 1_000, flushIntervalMs: 100, claimIdleMs: 30_000 },
    });
    expect(readPaymentsConfig({}).ledger.consumer).not.toBe(config.ledger.consumer);
  });

  it('rejects URLs of the wrong kind', () => {
    expect(() => readPaymentsConfig({ DATABASE_URL: 'redis://x', REDIS_URL: 'http://x', LEDGER_BATCH_SIZE: '0' })).toThrow(ConfigError);
  });
});
