import {
  ErrorCode,
  topUpOffer,
  type X402AuthorizeRequest,
  type X402Offer,
  type X402PayRequest,
  type X402Resource,
  type X402TopUpReply,
  type X402TopUpRequest,
} from '@appcat/contracts';
import type { RpcResult } from '@appcat/microservice';
import type { Context } from '@appcat/ops';
import { Injectable } from '@nestjs/common';
import { httpErrorFor } from '../errors/http-status.js';
import type { Charge } from '../priced/priced-result.js';
import { PaymentChallenge } from './payment-challenge.js';
import type { PaymentHold } from './payment-hold.js';
import { X402Rpc } from './x402-rpc.js';

const REFUSED_PAYMENT: ReadonlySet<ErrorCode> = new Set([
  ErrorCode.PaymentInvalid,
  ErrorCode.PaymentReplayed,
  ErrorCode.PaymentSettlementFailed,
]);

/**
 * Takes x402 payments through payments: a priced call's payment held (authorize, then capture or
 * release) or, when its data is already in hand, paid at once; a top-up bought. A payment that buys nothing is answered like an unpaid request —
 * 402 with a fresh `payment-required` header — but with the reason in `message` and in the header's
 * `error`, so the caller can fix it and pay again.
 */
@Injectable()
export class X402Checkout {
  constructor(
    private readonly x402: X402Rpc,
    private readonly challenge: PaymentChallenge,
  ) {}

  /**
   * Checks and claims a payment for the request's `offer` on its `resource`, taking nothing: the hold settles it on
   * `capture()`, once the data is in hand, or gives it back on `release()` so it can buy a retry. A
   * payment that buys nothing rejects with a 402 carrying a fresh challenge and the reason. `trace`:
   * the parent of the authorize request's span (the call's, when it is traced).
   */
  async authorize(request: X402AuthorizeRequest, trace?: Context): Promise<PaymentHold> {
    const { paymentSignature, offer, resource, route, requestId } = request;
    const hold = await this.refusingWithChallenge(offer, resource, requestId, () =>
      this.x402.authorize(request, trace),
    );
    let state: 'held' | 'captured' | 'released' = 'held';
    return {
      capture: async (captureTrace?: Context): Promise<Charge> => {
        if (state !== 'held') throw new Error(`x402 hold ${state} cannot be captured`);
        state = 'captured';
        const receipt = await this.refusingWithChallenge(offer, resource, requestId, () =>
          this.x402.settle({ paymentSignature, hold, resource, route, requestId }, captureTrace),
        );
        return { method: 'x402', receipt };
      },
      release: (releaseTrace?: Context) => {
        // After a capture, payments has settled the claim's fate itself (used, refused, or given back).
        if (state !== 'held') return;
        state = 'released';
        void this.x402.release({ hold }, requestId, releaseTrace);
      },
    };
  }

  /**
   * Takes a payment for the request's `offer` on its `resource` at once, for a call whose data is already in hand: one
   * request checks, claims and settles it. A payment that buys nothing rejects with a 402 carrying a
   * fresh challenge and the reason; anything else that fails it rejects with its HttpError. `trace`:
   * the parent of its request's span (the call's, when it is traced).
   */
  async pay(request: X402PayRequest, trace?: Context): Promise<Charge> {
    const { offer, resource, requestId } = request;
    const receipt = await this.refusingWithChallenge(offer, resource, requestId, () => this.x402.pay(request, trace));
    return { method: 'x402', receipt };
  }

  async topUp(request: X402TopUpRequest): Promise<X402TopUpReply> {
    return this.refusingWithChallenge(topUpOffer(request.amount), request.resource, request.requestId, () =>
      this.x402.topUp(request),
    );
  }

  private async refusingWithChallenge<T>(
    offer: X402Offer,
    resource: X402Resource,
    requestId: string,
    call: () => Promise<RpcResult<T>>,
  ): Promise<T> {
    const outcome = await call();
    if (outcome.ok) return outcome.value;
    const { code, message } = outcome.error;
    if (REFUSED_PAYMENT.has(code)) throw await this.challenge.required(offer, resource, requestId, message);
    throw httpErrorFor(code, message);
  }
}
