import {
  type AdminKeyCreated,
  type AdminKeyDetails,
  type AdminKeyList,
  type AdminReconcileReply,
  parseAdminCreateKeyRequest,
  parseAdminKeyRef,
  parseAdminReconcileRequest,
  QueueGroup,
  reconcileVerdict,
  Subject,
} from '@appcat/contracts';
import { PaymentsMetrics } from '@appcat/ops';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
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
  async create(@Payload() payload: unknown): Promise<AdminKeyCreated> {
    return this.keys.create(parseAdminCreateKeyRequest(payload));
  }

  @MessagePattern(Subject.AdminKeysRevoke, { queue: QueueGroup.Payments })
  async revoke(@Payload() payload: unknown): Promise<AdminKeyDetails> {
    return this.keys.revoke(parseAdminKeyRef(payload).ref);
  }

  @MessagePattern(Subject.AdminKeysShow, { queue: QueueGroup.Payments })
  async show(@Payload() payload: unknown): Promise<AdminKeyDetails> {
    return this.keys.show(parseAdminKeyRef(payload).ref);
  }

  @MessagePattern(Subject.AdminKeysList, { queue: QueueGroup.Payments })
  list(): Promise<AdminKeyList> {
    return this.keys.list();
  }

  @MessagePattern(Subject.AdminReconcile, { queue: QueueGroup.Payments })
  async reconcile(@Payload() payload: unknown): Promise<AdminReconcileReply> {
    // Read before the run: a refused request (a bad wait) is the caller's mistake, not a failed run.
    const request = parseAdminReconcileRequest(payload);
    try {
      const reply = await this.reconciliation.run(request);
      this.metrics.reconcileRuns.inc({ result: reconcileVerdict(reply) });
      return reply;
    } catch (error) {
      this.metrics.reconcileRuns.inc({ result: 'unavailable' });
      throw error;
    }
  }
}
