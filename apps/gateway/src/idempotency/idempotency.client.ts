import {
  type IdempotencyBeginReply,
  type IdempotencyBeginRequest,
  type IdempotencyFinishReply,
  type IdempotencyFinishRequest,
  Subject,
} from '@appcat/contracts';
import { type NatsRpcClient, RpcCallError } from '@appcat/microservice';
import { Inject, Injectable } from '@nestjs/common';
import { httpErrorFor } from '../errors/http-status.js';
import { NATS_RPC } from '../nats-rpc.provider.js';

/** Remembered answers, as payments keeps them (in Redis) over NATS. Failures come out as HttpErrors. */
@Injectable()
export class IdempotencyClient {
  constructor(@Inject(NATS_RPC) private readonly nats: NatsRpcClient) {}

  begin(request: IdempotencyBeginRequest): Promise<IdempotencyBeginReply> {
    return this.call<IdempotencyBeginReply>(Subject.IdempotencyBegin, request, request.requestId);
  }

  finish(request: IdempotencyFinishRequest): Promise<IdempotencyFinishReply> {
    return this.call<IdempotencyFinishReply>(Subject.IdempotencyFinish, request, request.requestId);
  }

  private async call<T>(subject: string, data: unknown, requestId: string): Promise<T> {
    try {
      return await this.nats.request<T>(subject, data, { service: 'payments', requestId });
    } catch (error) {
      if (error instanceof RpcCallError) throw httpErrorFor(error.code, error.message);
      throw error;
    }
  }
}
