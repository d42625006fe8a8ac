import { createRegistry, PaymentsMetrics } from '@appcat/ops';
import type { RedisClient } from '@appcat/redis';
import type pg from 'pg';
import type { PaymentsConfig } from '../../src/config/payments-config.js';
import { SettlementRecords } from '../../src/x402/settlement-records.js';
import { X402Keyspace } from '../../src/x402/x402-keyspace.js';
import { X402Payments } from '../../src/x402/x402-payments.js';

/**
 * X402Payments outside the app, with what the module gives it: a metrics registry of its own and
 * settlement records on the suite's Redis and Postgres (`pool`), in the configured shards, so a settled
 * payment is recorded as in production.
 */
export function x402Payments(config: PaymentsConfig, stores: { redis: RedisClient; pool: pg.Pool }) {
  const metrics = new PaymentsMetrics(createRegistry('payments'));
  const records = new SettlementRecords(stores.pool, stores.redis, new X402Keyspace(config.ledger.shards));
  return { payments: new X402Payments(config.x402, stores.redis, metrics, records), metrics, records };
}
