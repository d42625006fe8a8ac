import { topUpOffer, type X402Receipt, type X402TopUpOrder, type X402TopUpReply } from '@appcat/contracts';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { KeyService } from '../keys/key-service.js';
import { PaymentHolds } from './payment-holds.js';

/**
 * Buying credit with x402: the payment is checked and held, then settled and credited to a new key
 * holding exactly the amount paid, or to the caller's key, which is held against revocation while its
 * payment settles. The settlement's transaction is the top-up's unique reference, so one payment can
 * never credit twice, whatever is retried.
 */
@Injectable()
export class X402TopUps {
  private readonly logger = new Logger('X402TopUps');

  constructor(
    @Inject(PaymentHolds) private readonly holds: PaymentHolds,
    @Inject(KeyService) private readonly keys: KeyService,
  ) {}

  async topUp(request: X402TopUpOrder): Promise<X402TopUpReply> {
    const { amount } = request;
    // Refuse a recharge of an unknown or revoked key before the payment is even claimed.
    const existing = request.keyHash ? await this.keys.requireActive(request.keyHash) : null;
    const hold = await this.holds.authorize(request.paymentSignature, topUpOffer(amount), request.resource);

    let receipt: X402Receipt | undefined;
    let settling = false;
    const settle = async () => {
      settling = true;
      const settlement = await this.holds.settle(request.paymentSignature, hold, request.resource, {
        purpose: 'topup',
        route: 'topup',
        requestId: request.requestId,
      });
      receipt = settlement.receipt;
      return { externalRef: `x402:${receipt.network}:${receipt.transaction}`, payer: receipt.payer };
    };
    try {
      if (existing) {
        const outcome = await this.keys.rechargeHeld(existing.id, amount, async () => {
          const paid = await settle();
          return { externalRef: paid.externalRef, note: `x402 recharge by ${paid.payer}` };
        });
        return { receipt: receipt!, id: existing.id, prefix: existing.prefix, balance: outcome.balance.toString() };
      }
      const paid = await settle();
      const created = await this.keys.issue({
        amount,
        method: 'x402',
        externalRef: paid.externalRef,
        note: `x402 top-up by ${paid.payer}`,
      });
      return { receipt: receipt!, key: created.key, id: created.id, prefix: created.prefix, balance: created.balance };
    } catch (error) {
      if (!receipt) {
        // Refused before settling (the key was revoked meanwhile): nothing was taken, the payment may buy
        // another try. A failed settlement has already decided its claim's fate.
        if (!settling) await this.holds.release(hold);
        throw error;
      }
      // Paid but not credited (the stores failed after the settlement): the reference identifies the
      // payment for a manual credit.
      this.logger.error(
        `x402 top-up x402:${receipt.network}:${receipt.transaction} of ${amount} µUSD settled but not credited: ${(error as Error).message}`,
      );
      throw error;
    }
  }
}
