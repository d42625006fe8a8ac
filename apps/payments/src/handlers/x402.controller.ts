import {
  parseX402AcceptsRequest,
  parseX402AuthorizeRequest,
  parseX402PayRequest,
  parseX402ReleaseRequest,
  parseX402SettleRequest,
  parseX402TopUpRequest,
  QueueGroup,
  Subject,
  type X402AcceptsReply,
  type X402Hold,
  type X402Receipt,
  type X402ReleaseReply,
  type X402TopUpReply,
} from '@appcat/contracts';
import { Controller, Inject } from '@nestjs/common';
import { inRequestTrace } from '@appcat/microservice';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type PaidFor, PaymentHolds } from '../x402/payment-holds.js';
import { X402Offers } from '../x402/x402-offers.js';
import { X402TopUps } from '../x402/x402-top-ups.js';

/**
 * x402 for the gateway: challenges, per-call payments (held, then settled or released; or, for data in
 * hand, paid at once) and top-ups. Queue-grouped like every handler; each payload is read by its
 * subject's parser before anything runs.
 */
@Controller()
export class X402Controller {
  constructor(
    @Inject(X402Offers) private readonly offers: X402Offers,
    @Inject(PaymentHolds) private readonly holds: PaymentHolds,
    @Inject(X402TopUps) private readonly topUps: X402TopUps,
  ) {}

  @MessagePattern(Subject.X402Accepts, { queue: QueueGroup.Payments })
  async accepts(@Payload() payload: unknown): Promise<X402AcceptsReply> {
    return { accepts: await this.offers.accepts(parseX402AcceptsRequest(payload).offer) };
  }

  @MessagePattern(Subject.X402Authorize, { queue: QueueGroup.Payments })
  async authorize(@Payload() payload: unknown): Promise<X402Hold> {
    const request = parseX402AuthorizeRequest(payload);
    return inRequestTrace(payload, () =>
      this.holds.authorize(request.paymentSignature, request.offer, request.resource),
    );
  }

  @MessagePattern(Subject.X402Pay, { queue: QueueGroup.Payments })
  async pay(@Payload() payload: unknown): Promise<X402Receipt> {
    const request = parseX402PayRequest(payload);
    const settlement = await inRequestTrace(payload, () =>
      this.holds.pay(request.paymentSignature, request.offer, request.resource, paidForCall(request)),
    );
    return settlement.receipt;
  }

  @MessagePattern(Subject.X402Settle, { queue: QueueGroup.Payments })
  async settle(@Payload() payload: unknown): Promise<X402Receipt> {
    const request = parseX402SettleRequest(payload);
    const settlement = await inRequestTrace(payload, () =>
      this.holds.settle(request.paymentSignature, request.hold, request.resource, paidForCall(request)),
    );
    return settlement.receipt;
  }

  @MessagePattern(Subject.X402Release, { queue: QueueGroup.Payments })
  async release(@Payload() payload: unknown): Promise<X402ReleaseReply> {
    const { hold } = parseX402ReleaseRequest(payload);
    return { released: await inRequestTrace(payload, () => this.holds.release(hold)) };
  }

  @MessagePattern(Subject.CreditsTopUp, { queue: QueueGroup.Payments })
  async topUp(@Payload() payload: unknown): Promise<X402TopUpReply> {
    return this.topUps.topUp(parseX402TopUpRequest(payload));
  }
}

/** What a priced call's payment buys, kept with its settlement record. */
function paidForCall(request: { route: string; requestId: string }): PaidFor {
  return { purpose: 'call', route: request.route, requestId: request.requestId };
}
