export { createPaymentsApp } from './app.js';
export {
  DEFAULT_DATABASE_URL,
  DEFAULT_REDIS_URL,
  type LedgerConfig,
  type PaymentsConfig,
  readPaymentsConfig,
} from './config/payments-config.js';
export { KeyService, type TopUpOutcome } from './keys/key-service.js';
export { applyMigrations, type MigrationOutcome } from './migrate/apply-migrations.js';
export { CreditStore } from './persistence/credit-store.js';
export { CreditKeyspace } from './persistence/credit-keyspace.js';
export { X402Keyspace } from './x402/x402-keyspace.js';
