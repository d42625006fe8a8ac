import { type DynamicModule, Module } from '@nestjs/common';
import type { PaymentsConfig } from './config/payments-config.js';
import { CreditService } from './credits/credit-service.js';
import { CreditStore } from './credits/credit-store.js';
import { AdminKeysController } from './handlers/admin-keys.controller.js';
import { CreditsController } from './handlers/credits.controller.js';
import { KeyRepository } from './keys/key-repository.js';
import { KeyService } from './keys/key-service.js';
import { PaymentsResources } from './payments-resources.js';
import { PAYMENTS_CONFIG } from './payments-tokens.js';
import { PaymentsOps } from './payments-ops.js';
import { X402Controller } from './handlers/x402.controller.js';
import { IdempotencyController } from './handlers/idempotency.controller.js';
import { IdempotencyRecords } from './idempotency/idempotency-records.js';
import { X402Payments } from './x402/x402-payments.js';
import { X402TopUps } from './x402/x402-top-ups.js';
import { Reconciliation } from './reconcile/reconciliation.js';

@Module({})
export class PaymentsModule {
  static forConfig(config: PaymentsConfig): DynamicModule {
    return {
      module: PaymentsModule,
      controllers: [CreditsController, AdminKeysController, X402Controller, IdempotencyController],
      providers: [
        { provide: PAYMENTS_CONFIG, useValue: config },
        PaymentsResources,
        PaymentsOps,
        {
          provide: CreditStore,
          useFactory: (resources: PaymentsResources) => new CreditStore(resources.redis, resources.keyspace),
          inject: [PaymentsResources],
        },
        { provide: KeyRepository, useFactory: (resources: PaymentsResources) => new KeyRepository(resources.prisma), inject: [PaymentsResources] },
        {
          provide: CreditService,
          useFactory: (store: CreditStore, keys: KeyRepository) => new CreditService(store, keys, config.unknownKeyTtlMs),
          inject: [CreditStore, KeyRepository],
        },
        { provide: KeyService, useFactory: (keys: KeyRepository, store: CreditStore) => new KeyService(keys, store), inject: [KeyRepository, CreditStore] },
        {
          provide: X402Payments,
          useFactory: (resources: PaymentsResources, ops: PaymentsOps) => {
            const payments = new X402Payments(config.x402, resources.redis, ops.metrics, resources.settlements);
            payments.startFacilitatorCheck();
            ops.waitForFacilitator(() => payments.facilitatorChecked);
            return payments;
          },
          inject: [PaymentsResources, PaymentsOps],
        },
        {
          provide: Reconciliation,
          useFactory: (resources: PaymentsResources, store: CreditStore) =>
            new Reconciliation(resources.pool, resources.redis, store, resources.settlements),
          inject: [PaymentsResources, CreditStore],
        },
        { provide: IdempotencyRecords, useFactory: (resources: PaymentsResources) => new IdempotencyRecords(resources.redis, config.idempotency), inject: [PaymentsResources] },
        { provide: X402TopUps, useFactory: (payments: X402Payments, keys: KeyService) => new X402TopUps(payments, keys), inject: [X402Payments, KeyService] },
      ],
      exports: [KeyService, CreditService],
    };
  }
}
