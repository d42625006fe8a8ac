import { type PaymentsConfig, readPaymentsConfig } from '../../src/config/payments-config.js';
import { CreditKeyspace } from '../../src/persistence/credit-keyspace.js';

/** The credit key names a payments app uses with the default settings on one Redis. */
export const testKeyspace = new CreditKeyspace('credit:ledger', 1);

/** Payments settings for a suite's private servers, with fast shutdown and flushing. */
export function testConfig(
  urls: { nats: string; redis: string; database: string },
  env: Record<string, string> = {},
): PaymentsConfig {
  return readPaymentsConfig({
    NATS_URL: urls.nats,
    REDIS_URL: urls.redis,
    DATABASE_URL: urls.database,
    NATS_SHUTDOWN_GRACE_MS: '50',
    LEDGER_BLOCK_MS: '100',
    DATABASE_POOL_SIZE: '4',
    OPS_PORT: '0',
    ...env,
  });
}

/**
 * Probes until `accept` takes the value, and answers the last value probed (the caller asserts on it).
 * The deadline only bounds a wait for something that never comes; it is no measure of speed.
 */
export async function eventually<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
