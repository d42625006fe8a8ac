import {
  type IdempotencyBeginReply,
  type IdempotencyBeginRequest,
  type IdempotencyFinishReply,
  type IdempotencyFinishRequest,
  QueueGroup,
  Subject,
} from '@appcat/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { IdempotencyRecords } from '../idempotency/idempotency-records.js';

/** Remembered answers for the gateway's retried calls (payment-identifier, Idempotency-Key). */
@Controller()
export class IdempotencyController {
  constructor(@Inject(IdempotencyRecords) private readonly records: IdempotencyRecords) {}

  @MessagePattern(Subject.IdempotencyBegin, { queue: QueueGroup.Payments })
  begin(@Payload() request: IdempotencyBeginRequest): Promise<IdempotencyBeginReply> {
    return this.records.begin(request);
  }

  @MessagePattern(Subject.IdempotencyFinish, { queue: QueueGroup.Payments })
  finish(@Payload() request: IdempotencyFinishRequest): Promise<IdempotencyFinishReply> {
    return this.records.finish(request);
  }
}
