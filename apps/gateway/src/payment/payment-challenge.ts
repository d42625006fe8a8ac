import { Injectable } from '@nestjs/common';
import type { PricedRoute } from '@appcat/routes';
import { HttpError, Messages } from '../errors/http-error.js';

/**
 * Builds the 402 answer for a priced call that offered no payment. The x402 `payment-required`
 * header (the machine-readable requirements) is added here once x402 is enabled.
 */
@Injectable()
export class PaymentChallenge {
  required(_route: PricedRoute, _resourceUrl: string): HttpError {
    return new HttpError(402, Messages.paymentRequired);
  }
}
