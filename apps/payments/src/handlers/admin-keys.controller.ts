import {
  type AdminKeyCreated,
  type AdminKeyDetails,
  type AdminKeyList,
  type AdminReconcileReply,
  type AdminReconcileRequest,
  ErrorCode,
  QueueGroup,
  reconcileVerdict,
  Subject,
} from '@appcat/contracts';
import { PaymentsMetrics } from '@appcat/ops';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { WireException } from '@appcat/microservice';
import { KeyService } from '../keys/key-service.js';
import { Reconciliation } from '../reconcile/reconciliation.js';

/** The admin CLI's calls; the gateway never sends these subjects. */
@Controller()
export class AdminKeysController {
  constructor(
    @Inject(KeyService) private readonly keys: KeyService,
    @Inject(Reconciliation) private readonly reconciliation: Reconciliation,
    @Inject(PaymentsMetrics) private readonly metrics: PaymentsMetrics,
  ) {}

  @MessagePattern(Subject.AdminKeysCreate, { queue: QueueGroup.Payments })
  create(@Payload() request: unknown): Promise<AdminKeyCreated> {
    return this.keys.create(request);
  }

  @MessagePattern(Subject.AdminKeysRevoke, { queue: QueueGroup.Payments })
  revoke(@Payload() request: unknown): Promise<AdminKeyDetails> {
    return this.keys.revoke(request);
  }

  @MessagePattern(Subject.AdminKeysShow, { queue: QueueGroup.Payments })
  show(@Payload() request: unknown): Promise<AdminKeyDetails> {
    return this.keys.show(request);
  }

  @MessagePattern(Subject.AdminKeysList, { queue: QueueGroup.Payments })
  list(): Promise<AdminKeyList> {
    return this.keys.list();
  }

  @MessagePattern(Subject.AdminReconcile, { queue: QueueGroup.Payments })
  async reconcile(@Payload() request: AdminReconcileRequest | undefined): Promise<AdminReconcileReply> {
    try {
      const reply = await this.reconciliation.run(request);
      this.metrics.reconcileRuns.inc({ result: reconcileVerdict(reply) });
      return reply;
    } catch (error) {
      // A refused request (a bad wait) is the caller's mistake, not a reconciliation that could not run.
      if (!(error instanceof WireException && error.code === ErrorCode.InvalidArgument))
        this.metrics.reconcileRuns.inc({ result: 'unavailable' });
      throw error;
    }
  }
}
