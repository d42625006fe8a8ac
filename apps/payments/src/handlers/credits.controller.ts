import {
  type BalanceReply,
  type BatchItemResult,
  type CaptureReply,
  type DebitReply,
  QueueGroup,
  type ReleaseReply,
  type ReserveReply,
  Subject,
} from '@appcat/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { BatchResults, inRequestTrace, WireException } from '@appcat/microservice';
import { PaymentsMetrics } from '@appcat/ops';
import { CreditService } from '../credits/credit-service.js';

/**
 * The gateway's calls. Queue-grouped: each request is handled, and each call debited, by one replica.
 * Each subject has a batch twin taking the requests a gateway made in one loop turn, one result per item.
 */
@Controller()
export class CreditsController {
  constructor(
    @Inject(CreditService) private readonly credits: CreditService,
    @Inject(PaymentsMetrics) private readonly metrics: PaymentsMetrics,
  ) {}

  @MessagePattern(Subject.CreditsDebit, { queue: QueueGroup.Payments })
  debit(@Payload() request: unknown): Promise<DebitReply> {
    return this.counted(inRequestTrace(request, () => this.credits.debit(request)));
  }

  @MessagePattern(Subject.CreditsDebitBatch, { queue: QueueGroup.Payments })
  debitBatch(@Payload() request: unknown): Promise<BatchResults<DebitReply>> {
    return this.countedBatch(this.credits.batch(request, (item) => this.credits.debit(item)));
  }

  @MessagePattern(Subject.CreditsReserve, { queue: QueueGroup.Payments })
  reserve(@Payload() request: unknown): Promise<ReserveReply> {
    return inRequestTrace(request, () => this.credits.reserve(request));
  }

  @MessagePattern(Subject.CreditsReserveBatch, { queue: QueueGroup.Payments })
  async reserveBatch(@Payload() request: unknown): Promise<BatchResults<ReserveReply>> {
    return new BatchResults(await this.credits.batch(request, (item) => this.credits.reserve(item)));
  }

  /** A captured hold is a debit, counted as one. */
  @MessagePattern(Subject.CreditsCapture, { queue: QueueGroup.Payments })
  capture(@Payload() request: unknown): Promise<CaptureReply> {
    return this.counted(inRequestTrace(request, () => this.credits.capture(request)));
  }

  @MessagePattern(Subject.CreditsCaptureBatch, { queue: QueueGroup.Payments })
  captureBatch(@Payload() request: unknown): Promise<BatchResults<CaptureReply>> {
    return this.countedBatch(this.credits.batch(request, (item) => this.credits.capture(item)));
  }

  @MessagePattern(Subject.CreditsRelease, { queue: QueueGroup.Payments })
  release(@Payload() request: unknown): Promise<ReleaseReply> {
    return inRequestTrace(request, () => this.credits.release(request));
  }

  @MessagePattern(Subject.CreditsReleaseBatch, { queue: QueueGroup.Payments })
  async releaseBatch(@Payload() request: unknown): Promise<BatchResults<ReleaseReply>> {
    return new BatchResults(await this.credits.batch(request, (item) => this.credits.release(item)));
  }

  @MessagePattern(Subject.CreditsBalance, { queue: QueueGroup.Payments })
  balance(@Payload() request: unknown): Promise<BalanceReply> {
    return inRequestTrace(request, () => this.credits.balance(request));
  }

  private async counted<T>(debited: Promise<T>): Promise<T> {
    try {
      const reply = await debited;
      this.metrics.debits.inc({ outcome: 'ok' });
      return reply;
    } catch (error) {
      this.metrics.debits.inc({ outcome: error instanceof WireException ? error.code : 'error' });
      throw error;
    }
  }

  private async countedBatch<T>(debited: Promise<BatchItemResult<T>[]>): Promise<BatchResults<T>> {
    const results = await debited;
    for (const result of results) this.metrics.debits.inc({ outcome: result.ok ? 'ok' : result.error.code });
    return new BatchResults(results);
  }
}
