import {
  ErrorCode,
  MAX_TOPUP_MICROS,
  MIN_TOPUP_MICROS,
  parseMicros,
  topUpOffer,
  type X402TopUpReply,
  type X402TopUpRequest,
} from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { KeyService } from '../keys/key-service.js';
import { PaymentHolds } from './payment-holds.js';

/**
 * Buying credit with x402: settle first, then create a key holding exactly the amount paid, or add it
 * to the caller's key. The settlement's transaction is the top-up's unique reference, so one payment
 * can never credit twice, whatever is retried.
 */
@Injectable()
export class X402TopUps {
  private readonly logger = new Logger('X402TopUps');

  constructor(
    @Inject(PaymentHolds) private readonly holds: PaymentHolds,
    @Inject(KeyService) private readonly keys: KeyService,
  ) {}

  async topUp(request: X402TopUpRequest): Promise<X402TopUpReply> {
    let amount: bigint;
    try {
      amount = parseMicros(request.amount);
    } catch {
      throw new WireException(ErrorCode.InvalidArgument, 'amount must be a whole number of µUSD');
    }
    if (amount < MIN_TOPUP_MICROS || amount > MAX_TOPUP_MICROS)
      throw new WireException(ErrorCode.InvalidArgument, 'amount is out of range');
    // Refuse a recharge of an unknown or revoked key before any money moves.
    const existing = request.keyHash ? await this.keys.requireActive(request.keyHash) : null;

    const hold = await this.holds.authorize(request.paymentSignature, topUpOffer(amount), request.resource);
    const settlement = await this.holds.settle(request.paymentSignature, hold, request.resource, {
      purpose: 'topup',
      route: 'topup',
      requestId: request.requestId,
    });
    const externalRef = `x402:${settlement.receipt.network}:${settlement.receipt.transaction}`;
    try {
      if (existing) {
        const outcome = await this.keys.topUp(
          existing.id,
          amount,
          'x402',
          externalRef,
          `x402 recharge by ${settlement.receipt.payer}`,
        );
        return {
          receipt: settlement.receipt,
          id: existing.id,
          prefix: existing.prefix,
          balance: outcome.balance.toString(),
        };
      }
      const created = await this.keys.issue({
        amount,
        method: 'x402',
        externalRef,
        note: `x402 top-up by ${settlement.receipt.payer}`,
      });
      return {
        receipt: settlement.receipt,
        key: created.key,
        id: created.id,
        prefix: created.prefix,
        balance: created.balance,
      };
    } catch (error) {
      // Paid but not credited (the key was revoked in between, or the stores failed): the reference
      // identifies the payment for a manual credit.
      this.logger.error(
        `x402 top-up ${externalRef} of ${amount} µUSD settled but not credited: ${(error as Error).message}`,
      );
      throw error;
    }
  }
}
