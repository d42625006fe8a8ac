import { createRegistry, PaymentsMetrics } from '@appcat/ops';
import type { RedisClient } from '@appcat/redis';
import type pg from 'pg';
import type { PaymentsConfig } from '../../src/config/payments-config.js';
import { FacilitatorCheck } from '../../src/x402/facilitator-check.js';
import { FacilitatorConnection } from '../../src/x402/facilitator-connection.js';
import { PaymentHolds } from '../../src/x402/payment-holds.js';
import { SettlementRecords } from '../../src/x402/settlement-records.js';
import { SettlementRepository } from '../../src/persistence/settlement-repository.js';
import { X402Keyspace } from '../../src/x402/x402-keyspace.js';
import { X402Offers } from '../../src/x402/x402-offers.js';

/**
 * Payments' x402 parts outside the app, wired as the module wires them: a metrics registry of its own
 * and settlement records on the suite's Redis and Postgres (`pool`), in the configured shards, so a
 * settled payment is recorded as in production.
 */
export function x402Payments(config: PaymentsConfig, stores: { redis: RedisClient; pool: pg.Pool }) {
  const metrics = new PaymentsMetrics(createRegistry('payments'));
  const records = new SettlementRecords(
    new SettlementRepository(stores.pool),
    stores.redis,
    new X402Keyspace(config.ledger.shards),
  );
  const connection = new FacilitatorConnection(config.x402, metrics);
  const offers = new X402Offers(connection);
  return {
    connection,
    check: new FacilitatorCheck(connection),
    offers,
    holds: new PaymentHolds(connection, offers, stores.redis, metrics, records),
    metrics,
    records,
  };
}
