import { type BalanceReply, type DebitReply, QueueGroup, Subject } from '@appcat/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { WireException } from '@appcat/microservice';
import { CreditService } from '../credits/credit-service.js';
import { PaymentsOps } from '../payments-ops.js';

/** The gateway's calls. Queue-grouped: each request is handled, and each call debited, by one replica. */
@Controller()
export class CreditsController {
  constructor(
    @Inject(CreditService) private readonly credits: CreditService,
    @Inject(PaymentsOps) private readonly ops: PaymentsOps,
  ) {}

  @MessagePattern(Subject.CreditsDebit, { queue: QueueGroup.Payments })
  async debit(@Payload() request: unknown): Promise<DebitReply> {
    try {
      const reply = await this.credits.debit(request);
      this.ops.metrics.debits.inc({ outcome: 'ok' });
      return reply;
    } catch (error) {
      this.ops.metrics.debits.inc({ outcome: error instanceof WireException ? error.code : 'error' });
      throw error;
    }
  }

  @MessagePattern(Subject.CreditsBalance, { queue: QueueGroup.Payments })
  balance(@Payload() request: unknown): Promise<BalanceReply> {
    return this.credits.balance(request);
  }
}
