import { type BalanceReply, type DebitReply, QueueGroup, Subject } from '@appcat/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CreditService } from '../credits/credit-service.js';

/** The gateway's calls. Queue-grouped: each request is handled, and each call debited, by one replica. */
@Controller()
export class CreditsController {
  constructor(@Inject(CreditService) private readonly credits: CreditService) {}

  @MessagePattern(Subject.CreditsDebit, { queue: QueueGroup.Payments })
  debit(@Payload() request: unknown): Promise<DebitReply> {
    return this.credits.debit(request);
  }

  @MessagePattern(Subject.CreditsBalance, { queue: QueueGroup.Payments })
  balance(@Payload() request: unknown): Promise<BalanceReply> {
    return this.credits.balance(request);
  }
}
