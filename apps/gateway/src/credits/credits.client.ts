import {
  type ApiKeyHash,
  type BalanceReply,
  type BalanceRequest,
  type DebitReply,
  type DebitRequest,
  parseMicros,
  Subject,
} from '@appcat/contracts';
import { type NatsRpcClient, RpcCallError } from '@appcat/microservice';
import { Inject, Injectable } from '@nestjs/common';
import { httpErrorFor } from '../errors/http-status.js';
import { NATS_RPC } from '../nats-rpc.provider.js';

/** Prepaid credits, as payments offers them over NATS. Failures come out as HttpErrors. */
@Injectable()
export class CreditsClient {
  constructor(@Inject(NATS_RPC) private readonly nats: NatsRpcClient) {}

  /** Draws `price` from the key; resolves with the balance left, µUSD. */
  async debit(keyHash: ApiKeyHash, price: bigint, route: string, requestId: string): Promise<bigint> {
    const request: DebitRequest = { keyHash, amount: price.toString(), route, requestId };
    const reply = await this.call<DebitReply>(Subject.CreditsDebit, request, requestId);
    return parseMicros(reply.balance);
  }

  async balance(keyHash: ApiKeyHash, requestId: string): Promise<bigint> {
    const request: BalanceRequest = { keyHash };
    const reply = await this.call<BalanceReply>(Subject.CreditsBalance, request, requestId);
    return parseMicros(reply.balance);
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
