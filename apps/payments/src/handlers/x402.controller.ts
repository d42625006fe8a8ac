import {
  QueueGroup,
  Subject,
  type X402AcceptsReply,
  type X402AcceptsRequest,
  type X402AuthorizeRequest,
  type X402Hold,
  type X402Receipt,
  type X402ReleaseReply,
  type X402ReleaseRequest,
  type X402SettleRequest,
  type X402TopUpReply,
  type X402TopUpRequest,
} from '@appcat/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { PaymentHolds } from '../x402/payment-holds.js';
import { X402Offers } from '../x402/x402-offers.js';
import { X402TopUps } from '../x402/x402-top-ups.js';

/** x402 for the gateway: challenges, per-call payments (held, then settled or released) and top-ups. Queue-grouped like every handler. */
@Controller()
export class X402Controller {
  constructor(
    @Inject(X402Offers) private readonly offers: X402Offers,
    @Inject(PaymentHolds) private readonly holds: PaymentHolds,
    @Inject(X402TopUps) private readonly topUps: X402TopUps,
  ) {}

  @MessagePattern(Subject.X402Accepts, { queue: QueueGroup.Payments })
  async accepts(@Payload() request: X402AcceptsRequest): Promise<X402AcceptsReply> {
    return { accepts: await this.offers.accepts(request.offer) };
  }

  @MessagePattern(Subject.X402Authorize, { queue: QueueGroup.Payments })
  authorize(@Payload() request: X402AuthorizeRequest): Promise<X402Hold> {
    return this.holds.authorize(request.paymentSignature, request.offer, request.resource);
  }

  @MessagePattern(Subject.X402Settle, { queue: QueueGroup.Payments })
  async settle(@Payload() request: X402SettleRequest): Promise<X402Receipt> {
    const settlement = await this.holds.settle(request.paymentSignature, request.hold, request.resource, {
      purpose: 'call',
      route: request.route,
      requestId: request.requestId,
    });
    return settlement.receipt;
  }

  @MessagePattern(Subject.X402Release, { queue: QueueGroup.Payments })
  async release(@Payload() request: X402ReleaseRequest): Promise<X402ReleaseReply> {
    return { released: await this.holds.release(request.hold) };
  }

  @MessagePattern(Subject.CreditsTopUp, { queue: QueueGroup.Payments })
  topUp(@Payload() request: X402TopUpRequest): Promise<X402TopUpReply> {
    return this.topUps.topUp(request);
  }
}
