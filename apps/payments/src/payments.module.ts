import { opsProviders, PaymentsMetrics } from '@appcat/ops';
import { type DynamicModule, Module } from '@nestjs/common';
import type { PaymentsConfig } from './config/payments-config.js';
import { CreditService } from './credits/credit-service.js';
import { CreditStore } from './persistence/credit-store.js';
import { HoldSweeper } from './credits/hold-sweeper.js';
import { AdminKeysController } from './handlers/admin-keys.controller.js';
import { CreditsController } from './handlers/credits.controller.js';
import { IdempotencyController } from './handlers/idempotency.controller.js';
import { X402Controller } from './handlers/x402.controller.js';
import { IdempotencyRecords } from './idempotency/idempotency-records.js';
import { KeyRepository } from './persistence/key-repository.js';
import { LedgerRepository } from './persistence/ledger-repository.js';
import { SettlementRepository } from './persistence/settlement-repository.js';
import { KeyService } from './keys/key-service.js';
import { PaymentsReadiness } from './payments-readiness.js';
import { paymentsResourceProviders, PaymentsResources } from './payments-resources.js';
import {
  CREDIT_HOLD_MS,
  IDEMPOTENCY_SETTINGS,
  PAYMENTS_CONFIG,
  UNKNOWN_KEY_TTL_MS,
  X402_CONFIG,
} from './payments-tokens.js';
import { Reconciliation } from './reconcile/reconciliation.js';
import { FacilitatorCheck } from './x402/facilitator-check.js';
import { FacilitatorConnection } from './x402/facilitator-connection.js';
import { PaymentHolds } from './x402/payment-holds.js';
import { X402Offers } from './x402/x402-offers.js';
import { X402TopUps } from './x402/x402-top-ups.js';

@Module({})
export class PaymentsModule {
  static forRoot(config: PaymentsConfig): DynamicModule {
    return {
      module: PaymentsModule,
      controllers: [CreditsController, AdminKeysController, X402Controller, IdempotencyController],
      providers: [
        { provide: PAYMENTS_CONFIG, useValue: config },
        { provide: X402_CONFIG, useValue: config.x402 },
        { provide: IDEMPOTENCY_SETTINGS, useValue: config.idempotency },
        { provide: UNKNOWN_KEY_TTL_MS, useValue: config.unknownKeyTtlMs },
        { provide: CREDIT_HOLD_MS, useValue: config.creditHoldMs },
        ...opsProviders({
          service: 'payments',
          ops: config.ops,
          natsProbe: config.nats,
          metrics: PaymentsMetrics,
          readiness: PaymentsReadiness,
        }),
        PaymentsResources,
        ...paymentsResourceProviders,
        CreditStore,
        KeyRepository,
        LedgerRepository,
        SettlementRepository,
        CreditService,
        HoldSweeper,
        KeyService,
        FacilitatorConnection,
        FacilitatorCheck,
        X402Offers,
        PaymentHolds,
        X402TopUps,
        Reconciliation,
        IdempotencyRecords,
      ],
      exports: [KeyService, CreditService],
    };
  }
}
