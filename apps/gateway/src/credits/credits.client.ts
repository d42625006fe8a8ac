import { type ApiKeyHash, type BalanceRequest, type DebitRequest, parseMicros, Subject } from '@appcat/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_RPC, type GatewayRpc } from '../nats-rpc.provider.js';

/** Prepaid credits, as payments offers them over NATS. Failures come out as HttpErrors. */
@Injectable()
export class CreditsClient {
  constructor(@Inject(GATEWAY_RPC) private readonly rpc: GatewayRpc) {}

  /** Draws `price` from the key; resolves with the balance left, µUSD. */
  async debit(keyHash: ApiKeyHash, price: bigint, route: string, requestId: string): Promise<bigint> {
    const request: DebitRequest = { keyHash, amount: price.toString(), route, requestId };
    const reply = await this.rpc.request(Subject.CreditsDebit, request, { requestId });
    return parseMicros(reply.balance);
  }

  async balance(keyHash: ApiKeyHash, requestId: string): Promise<bigint> {
    const request: BalanceRequest = { keyHash };
    const reply = await this.rpc.request(Subject.CreditsBalance, request, { requestId });
    return parseMicros(reply.balance);
  }
}
