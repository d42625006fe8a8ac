import { type BalanceReply, type BatchReply, type DebitReply, QueueGroup, Subject } from '@appcat/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { WireException } from '@appcat/microservice';
import { PaymentsMetrics } from '@appcat/ops';
import { CreditService } from '../credits/credit-service.js';

/** The gateway's calls. Queue-grouped: each request is handled, and each call debited, by one replica. */
@Controller()
export class CreditsController {
  constructor(
    @Inject(CreditService) private readonly credits: CreditService,
    @Inject(PaymentsMetrics) private readonly metrics: PaymentsMetrics,
  ) {}

  @MessagePattern(Subject.CreditsDebit, { queue: QueueGroup.Payments })
  async debit(@Payload() request: unknown): Promise<DebitReply> {
    try {
      const reply = await this.credits.debit(request);
      this.metrics.debits.inc({ outcome: 'ok' });
      return reply;
    } catch (error) {
      this.metrics.debits.inc({ outcome: error instanceof WireException ? error.code : 'error' });
      throw error;
    }
  }

  /** Coalesced debits from one gateway loop turn: one result per item, each counted as a debit. */
  @MessagePattern(Subject.CreditsDebitBatch, { queue: QueueGroup.Payments })
  async debitBatch(@Payload() request: unknown): Promise<BatchReply<DebitReply>> {
    const results = await this.credits.debitBatch(request);
    for (const result of results) this.metrics.debits.inc({ outcome: result.ok ? 'ok' : result.error.code });
    return { results };
  }

  @MessagePattern(Subject.CreditsBalance, { queue: QueueGroup.Payments })
  balance(@Payload() request: unknown): Promise<BalanceReply> {
    return this.credits.balance(request);
  }
}
