import {
  type IdempotencyBeginReply,
  type IdempotencyFinishReply,
  keyHashOfScope,
  parseIdempotencyBeginRequest,
  parseIdempotencyFinishRequest,
  QueueGroup,
  Subject,
} from '@appcat/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CreditService } from '../credits/credit-service.js';
import { IdempotencyRecords } from '../idempotency/idempotency-records.js';

/** Remembered answers for the gateway's retried calls (payment-identifier, Idempotency-Key). */
@Controller()
export class IdempotencyController {
  constructor(
    @Inject(IdempotencyRecords) private readonly records: IdempotencyRecords,
    @Inject(CreditService) private readonly credits: CreditService,
  ) {}

  /**
   * Revocation wins over every remembered answer: a key's record is replayed only while the key may
   * still pay (its balance read refuses a revoked or unknown key), so a revoked key gets no data back.
   */
  @MessagePattern(Subject.IdempotencyBegin, { queue: QueueGroup.Payments })
  async begin(@Payload() payload: unknown): Promise<IdempotencyBeginReply> {
    const request = parseIdempotencyBeginRequest(payload);
    const reply = await this.records.begin(request);
    const keyHash = keyHashOfScope(request.scope);
    if (keyHash !== undefined && (reply.state === 'done' || reply.state === 'done-unkept'))
      await this.credits.balance({ keyHash });
    return reply;
  }

  @MessagePattern(Subject.IdempotencyFinish, { queue: QueueGroup.Payments })
  async finish(@Payload() payload: unknown): Promise<IdempotencyFinishReply> {
    return this.records.finish(parseIdempotencyFinishRequest(payload));
  }
}
