import type { ReadinessCheck, ReadinessChecks } from '@appcat/ops';
import { Inject, Injectable } from '@nestjs/common';
import { PaymentsResources } from './payments-resources.js';
import { FacilitatorCheck } from './x402/facilitator-check.js';

/** A payments replica is ready once Redis and Postgres answer and the facilitator's /supported has been read (besides NATS, which the ops port probes). */
@Injectable()
export class PaymentsReadiness implements ReadinessChecks {
  readonly checks: ReadinessCheck[];

  constructor(
    @Inject(PaymentsResources) resources: PaymentsResources,
    @Inject(FacilitatorCheck) facilitator: FacilitatorCheck,
  ) {
    this.checks = [
      { name: 'redis', check: () => resources.redis.ping() },
      { name: 'postgres', check: () => resources.pool.query('SELECT 1') },
      // The facilitator's start-up check; a configured network the facilitator lacks fails start-up instead (main).
      {
        name: 'facilitator',
        check: async () => (facilitator.passed ? undefined : Promise.reject(new Error('/supported not read yet'))),
      },
    ];
  }
}
