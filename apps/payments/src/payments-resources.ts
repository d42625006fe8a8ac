import { PaymentsMetrics } from '@appcat/ops';
import { type ClusterFailoverOptions, connectRedis, type RedisClient, redisReady } from '@appcat/redis';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
  type Provider,
} from '@nestjs/common';
import type pg from 'pg';
import { PAYMENTS_CONFIG, PAYMENTS_REDIS, PG_POOL, PRISMA } from './payments-tokens.js';
import type { PaymentsConfig } from './config/payments-config.js';
import { createPool, createPrisma, type PrismaClient } from './database/database.js';
import { CreditKeyspace } from './persistence/credit-keyspace.js';
import { LedgerFlusher } from './ledger/ledger-flusher.js';
import { LedgerRepository } from './persistence/ledger-repository.js';
import { SettlementRepository } from './persistence/settlement-repository.js';
import { SettlementRecords } from './x402/settlement-records.js';
import { X402Keyspace } from './x402/x402-keyspace.js';

const REDIS_READY_WAIT_MS = 5_000;

/**
 * On a Redis Cluster, a command whose node connection closed under it is not sent again (ioredis would,
 * after `retryDelayOnFailover`): it may have run before the node died, and a debit's script or a ledger
 * read run twice takes the credit twice or strands the entries read; it fails instead, as it does on one
 * Redis with `maxRetriesPerRequest: 0` (the ambiguous case of docs/credits.md). Commands refused without
 * running (CLUSTERDOWN, TRYAGAIN, MOVED) are retried: a failover (node timeout + election) takes a few
 * seconds, and a command refused meanwhile waits briefly and is retried on the new primary, within the
 * command timeout.
 */
export const PAYMENTS_CLUSTER_FAILOVER: ClusterFailoverOptions = {
  retryDelayOnFailover: 0,
  retryDelayOnClusterDown: 200,
};

/**
 * The replica's connections (pg pool, Prisma, Redis) and its ledger flusher. Owns their lifecycle so the
 * order is right: the flusher starts once everything is up, and at shutdown it drains what it can into
 * Postgres before any connection closes (Nest runs a module's shutdown hooks all at once, so one owner
 * keeps the order).
 */
@Injectable()
export class PaymentsResources implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('PaymentsResources');
  readonly pool: pg.Pool;
  readonly prisma: PrismaClient;
  /** Fails fast while disconnected: a request must get CreditStoreUnavailable, not wait in a queue. */
  readonly redis: RedisClient;
  /** Names of the credit keys and ledger shards, shared by the store, the flusher and reconciliation. */
  readonly keyspace: CreditKeyspace;
  readonly flusher: LedgerFlusher;
  /** x402 settlements for reconciliation; moves records queued while Postgres was down. */
  readonly settlements: SettlementRecords;
  private readonly flusherRedis: RedisClient;

  constructor(@Inject(PAYMENTS_CONFIG) config: PaymentsConfig, @Inject(PaymentsMetrics) metrics: PaymentsMetrics) {
    this.pool = createPool(config.databaseUrl, config.databasePoolSize);
    this.prisma = createPrisma(this.pool);
    this.redis = connectRedis(
      config.redis,
      {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: config.redisCommandTimeoutMs,
        connectionName: `payments:${config.ledger.consumer}`,
      },
      PAYMENTS_CLUSTER_FAILOVER,
    );
    this.flusherRedis = connectRedis(
      config.redis,
      {
        ...LedgerFlusher.connectionOptions(config.ledger, config.redisCommandTimeoutMs),
        connectionName: `payments-ledger:${config.ledger.consumer}`,
      },
      PAYMENTS_CLUSTER_FAILOVER,
    );
    for (const connection of [this.redis, this.flusherRedis]) {
      // ioredis reconnects by itself; without a listener an error event would crash the process.
      connection.on('error', (error: Error) => this.logger.warn(`redis: ${error.message}`));
    }
    this.keyspace = new CreditKeyspace(config.ledger.stream, config.ledger.shards);
    this.flusher = new LedgerFlusher(
      this.flusherRedis,
      new LedgerRepository(this.pool),
      config.ledger,
      this.keyspace.streams,
    );
    this.flusher.onFlushed = (count, oldest) => {
      metrics.ledgerFlushed.inc(count);
      metrics.ledgerFlushLagSeconds.set(Math.max(0, (Date.now() - oldest) / 1000));
    };
    this.settlements = new SettlementRecords(
      new SettlementRepository(this.pool),
      this.redis,
      new X402Keyspace(config.ledger.shards),
    );
  }

  async onModuleInit(): Promise<void> {
    // Serve without Redis if it is down at boot (requests get CreditStoreUnavailable), but do not turn
    // the first requests away just because the connection is still being made.
    if (!(await redisReady(this.redis, REDIS_READY_WAIT_MS))) this.logger.warn('redis not ready at start-up');
  }

  onApplicationBootstrap(): void {
    this.flusher.start();
    this.settlements.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.flusher.stop();
    await this.settlements.stop();
    this.redis.disconnect();
    this.flusherRedis.disconnect();
    await this.prisma.$disconnect();
    await this.pool.end();
  }
}

/** What PaymentsResources holds, under the tokens the other providers inject: DI cannot name a provider's member itself. */
export const paymentsResourceProviders: Provider[] = [
  {
    provide: PAYMENTS_REDIS,
    useFactory: (resources: PaymentsResources) => resources.redis,
    inject: [PaymentsResources],
  },
  { provide: PG_POOL, useFactory: (resources: PaymentsResources) => resources.pool, inject: [PaymentsResources] },
  { provide: PRISMA, useFactory: (resources: PaymentsResources) => resources.prisma, inject: [PaymentsResources] },
  {
    provide: CreditKeyspace,
    useFactory: (resources: PaymentsResources) => resources.keyspace,
    inject: [PaymentsResources],
  },
  {
    provide: SettlementRecords,
    useFactory: (resources: PaymentsResources) => resources.settlements,
    inject: [PaymentsResources],
  },
];
