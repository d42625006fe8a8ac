import {
  QueueGroup,
  Subject,
  type X402AcceptsReply,
  type X402AcceptsRequest,
  type X402PayRequest,
  type X402Receipt,
  type X402TopUpReply,
  type X402TopUpRequest,
} from '@appcat/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { X402Payments } from '../x402/x402-payments.js';
import { X402TopUps } from '../x402/x402-top-ups.js';

/** x402 for the gateway: challenges, per-call payments and top-ups. Queue-grouped like every handler. */
@Controller()
export class X402Controller {
  constructor(
    @Inject(X402Payments) private readonly payments: X402Payments,
    @Inject(X402TopUps) private readonly topUps: X402TopUps,
  ) {}

  @MessagePattern(Subject.X402Accepts, { queue: QueueGroup.Payments })
  async accepts(@Payload() request: X402AcceptsRequest): Promise<X402AcceptsReply> {
    return { accepts: await this.payments.accepts(request.offer) };
  }

  @MessagePattern(Subject.X402Pay, { queue: QueueGroup.Payments })
  async pay(@Payload() request: X402PayRequest): Promise<X402Receipt> {
    const settlement = await this.payments.settle(request.paymentSignature, request.offer, request.resource, {
      purpose: 'call',
      route: request.route,
      requestId: request.requestId,
    });
    return settlement.receipt;
  }

  @MessagePattern(Subject.CreditsTopUp, { queue: QueueGroup.Payments })
  topUp(@Payload() request: X402TopUpRequest): Promise<X402TopUpReply> {
    return this.topUps.topUp(request);
  }
}
