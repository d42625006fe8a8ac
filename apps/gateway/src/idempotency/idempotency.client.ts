import {
  type IdempotencyBeginReply,
  type IdempotencyBeginRequest,
  type IdempotencyFinishReply,
  type IdempotencyFinishRequest,
  Subject,
} from '@appcat/contracts';
import { type NatsRpcClient, RpcCallError } from '@appcat/microservice';
import type { Context } from '@appcat/ops';
import { Inject, Injectable } from '@nestjs/common';
import { httpErrorFor } from '../errors/http-status.js';
import { NATS_RPC } from '../nats-rpc.provider.js';

/**
 * Remembered answers, as payments keeps them (in Redis) over NATS. Failures come out as HttpErrors.
 * `trace`: the trace context a request carries (the call's, when it is traced).
 */
@Injectable()
export class IdempotencyClient {
  constructor(@Inject(NATS_RPC) private readonly nats: NatsRpcClient) {}

  begin(request: IdempotencyBeginRequest, trace?: Context): Promise<IdempotencyBeginReply> {
    return this.call<IdempotencyBeginReply>(Subject.IdempotencyBegin, request, request.requestId, trace);
  }

  finish(request: IdempotencyFinishRequest, trace?: Context): Promise<IdempotencyFinishReply> {
    return this.call<IdempotencyFinishReply>(Subject.IdempotencyFinish, request, request.requestId, trace);
  }

  private async call<T>(subject: string, data: unknown, requestId: string, trace: Context | undefined): Promise<T> {
    try {
      return await this.nats.request<T>(subject, data, { service: 'payments', requestId, trace });
    } catch (error) {
      if (error instanceof RpcCallError) throw httpErrorFor(error.code, error.message);
      throw error;
    }
  }
}
