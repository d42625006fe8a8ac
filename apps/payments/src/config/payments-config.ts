import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import {
  type EnvReader,
  type NatsConfig,
  readConfig,
  readNatsConfig,
  readRedisEndpoint,
  type RedisEndpoint,
} from '@appcat/config';
import type { IdempotencySettings } from '../idempotency/idempotency-records.js';
import { readX402Config, type X402Config } from '../x402/x402-config.js';
import { type OpsConfig, readOpsConfig } from '@appcat/ops';

export const DEFAULT_DATABASE_URL = 'postgresql://postgres:postgres@127.0.0.1:5432/appcat';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
/** Ledger shards on a Redis Cluster unless LEDGER_STREAM_SHARDS says otherwise: a few per primary of a 3-primary cluster. */
export const DEFAULT_CLUSTER_LEDGER_SHARDS = 12;

/** The Redis stream of debits not yet written to Postgres, and the flushers that drain it. */
export interface LedgerConfig {
  /** The shards' streams are named `<stream>:{<shard tag>}`. */
  stream: string;
  /**
   * How many streams the ledger is split into (each key's debits go to one, by its key hash). One Redis
   * needs one; a Redis Cluster needs several, so the streams (and the keys with them) spread over its primaries.
   */
  shards: number;
  group: string;
  /** This replica's consumer name in the group; unique per process. */
  consumer: string;
  /** Most debits written to Postgres in one statement. */
  batchSize: number;
  /** How long one XREADGROUP waits for new debits, ms; bounds how stale Postgres can be. */
  blockMs: number;
  /**
   * Shortest time between the starts of two batches that were not full, ms: under steady traffic the
   * debits of this long go to Postgres in one transaction instead of one small one per loop. 0 reads
   * again at once.
   */
  flushIntervalMs: number;
  /** Debits read by a consumer and not acknowledged for this long are taken over by another, ms. */
  claimIdleMs: number;
}

export interface PaymentsConfig {
  nats: NatsConfig;
  databaseUrl: string;
  databasePoolSize: number;
  /** One Redis (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES). */
  redis: RedisEndpoint;
  /** A Redis command that takes longer fails the request with CreditStoreUnavailable, ms. */
  redisCommandTimeoutMs: number;
  /** How long a key hash that Postgres does not know is remembered as unknown, ms. */
  unknownKeyTtlMs: number;
  /** How long a priced call's credit hold lasts before it is given back by itself, ms (CREDIT_HOLD_MS). */
  creditHoldMs: number;
  ledger: LedgerConfig;
  x402: X402Config;
  idempotency: IdempotencySettings;
  ops: OpsConfig;
}

export function readDatabaseUrl(env: EnvReader): string {
  return env.url('DATABASE_URL', DEFAULT_DATABASE_URL, ['postgresql:', 'postgres:']);
}

export function readPaymentsConfig(environment: Record<string, string | undefined> = process.env): PaymentsConfig {
  return readConfig((env) => {
    const redis = readRedisEndpoint(env, DEFAULT_REDIS_URL);
    return {
      nats: readNatsConfig(env),
      databaseUrl: readDatabaseUrl(env),
      databasePoolSize: env.int('DATABASE_POOL_SIZE', 10, { min: 1, max: 100 }),
      redis,
      redisCommandTimeoutMs: env.int('REDIS_COMMAND_TIMEOUT_MS', 2_000, { min: 50, max: 60_000 }),
      unknownKeyTtlMs: env.int('CREDIT_UNKNOWN_KEY_TTL_MS', 30_000, { min: 0, max: 3_600_000 }),
      creditHoldMs: env.int('CREDIT_HOLD_MS', 15_000, { min: 1_000, max: 600_000 }),
      ledger: {
        stream: env.string('LEDGER_STREAM', 'credit:ledger'),
        shards: env.int('LEDGER_STREAM_SHARDS', redis.clusterNodes.length > 0 ? DEFAULT_CLUSTER_LEDGER_SHARDS : 1, {
          min: 1,
          max: 256,
        }),
        group: env.string('LEDGER_GROUP', 'ledger-flushers'),
        consumer: env.string('LEDGER_CONSUMER', defaultConsumerName()),
        batchSize: env.int('LEDGER_BATCH_SIZE', 500, { min: 1, max: 10_000 }),
        blockMs: env.int('LEDGER_BLOCK_MS', 1_000, { min: 10, max: 60_000 }),
        flushIntervalMs: env.int('LEDGER_FLUSH_INTERVAL_MS', 100, { min: 0, max: 10_000 }),
        claimIdleMs: env.int('LEDGER_CLAIM_IDLE_MS', 30_000, { min: 100, max: 3_600_000 }),
      },
      x402: readX402Config(env),
      idempotency: {
        ttlMs: env.int('IDEMPOTENCY_TTL_SECONDS', 86_400, { min: 60, max: 30 * 86_400 }) * 1000,
        leaseMs: env.int('IDEMPOTENCY_LEASE_MS', 120_000, { min: 1_000, max: 3_600_000 }),
        maxAnswerBytes: env.int('IDEMPOTENCY_MAX_ANSWER_BYTES', 1_048_576, { min: 1_024, max: 16_777_216 }),
      },
      ops: readOpsConfig(env, 9101),
    };
  }, environment);
}

/** Host and pid name the replica for operators; the random tail keeps two in one process apart. */
export function defaultConsumerName(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}
