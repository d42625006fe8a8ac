import {
  type ApiKeyHash,
  type BalanceRequest,
  type DebitRequest,
  type HoldRequest,
  parseMicros,
  Subject,
} from '@appcat/contracts';
import type { Context } from '@appcat/ops';
import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_RPC, type GatewayRpc } from '../nats-rpc.provider.js';
import type { PaymentHold } from '../payment/payment-hold.js';
import type { Charge } from '../priced/priced-result.js';

/**
 * Prepaid credits, as payments offers them over NATS. Failures come out as HttpErrors. `trace`: the
 * parent of a request's span (the caller's span, when the call is traced).
 */
@Injectable()
export class CreditsClient {
  constructor(@Inject(GATEWAY_RPC) private readonly rpc: GatewayRpc) {}

  /** Draws `price` from the key in one step, for data already in hand; resolves with the balance left, µUSD. */
  async debit(keyHash: ApiKeyHash, price: bigint, route: string, requestId: string, trace?: Context): Promise<bigint> {
    const request: DebitRequest = { keyHash, amount: price.toString(), route, requestId };
    const reply = await this.rpc.request(Subject.CreditsDebit, request, { requestId, trace });
    return parseMicros(reply.balance);
  }

  /**
   * Holds `price` on the key until the call captures or releases it (payments gives it back by itself
   * if neither comes); rejects with the refusal (401 unknown or revoked key, 402 topup_required) before any hold.
   */
  async reserve(
    keyHash: ApiKeyHash,
    price: bigint,
    route: string,
    requestId: string,
    trace?: Context,
  ): Promise<PaymentHold> {
    const request: DebitRequest = { keyHash, amount: price.toString(), route, requestId };
    const { reservationId } = await this.rpc.request(Subject.CreditsReserve, request, { requestId, trace });
    const hold: HoldRequest = { ...request, reservationId };
    return {
      capture: async (captureTrace?: Context): Promise<Charge> => {
        const reply = await this.rpc.request(Subject.CreditsCapture, hold, { requestId, trace: captureTrace });
        return { method: 'credits', balance: parseMicros(reply.balance) };
      },
      // A lost release costs nothing: the hold lapses and payments gives it back within seconds.
      release: (releaseTrace?: Context) => {
        this.rpc.result(Subject.CreditsRelease, hold, { requestId, trace: releaseTrace }).catch(() => undefined);
      },
    };
  }

  async balance(keyHash: ApiKeyHash, requestId: string, trace?: Context): Promise<bigint> {
    const request: BalanceRequest = { keyHash };
    const reply = await this.rpc.request(Subject.CreditsBalance, request, { requestId, trace });
    return parseMicros(reply.balance);
  }
}
