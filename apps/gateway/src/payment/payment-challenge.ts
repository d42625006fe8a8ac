import { encodeX402Header, type X402Offer, type X402Resource } from '@appcat/contracts';
import { Injectable, Optional } from '@nestjs/common';
import { declarePaymentIdentifierExtension, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import type { PaymentRequired } from '@x402/core/types';
import { ChallengeExtensions } from '../discovery/challenge-extensions.js';
import { HttpError, Messages } from '../errors/http-error.js';
import { X402Rpc } from './x402-rpc.js';

export const PAYMENT_REQUIRED_HEADER = 'payment-required';
const PAYMENT_IDENTIFIER_DECLARATION = declarePaymentIdentifierExtension(false);
export const PAYMENT_RESPONSE_HEADER = 'payment-response';

/**
 * A 402 that carries its x402 `PaymentRequired`: HTTP sends it as the `payment-required` header, MCP
 * as the tool error's structured content.
 */
export class PaymentRequiredError extends HttpError {
  constructor(
    message: string,
    readonly paymentRequired: PaymentRequired,
  ) {
    super(402, message, { [PAYMENT_REQUIRED_HEADER]: encodeX402Header(paymentRequired) });
  }
}

/**
 * Builds 402 answers: the envelope with `message` (payment_required, or the reason a payment was
 * refused) and the x402 `payment-required` header, base64 of a v2 PaymentRequired listing one
 * `accepts` entry per network.
 */
@Injectable()
export class PaymentChallenge {
  constructor(
    private readonly x402: X402Rpc,
    // The bazaar declaration of the route paid for (discovery metadata for facilitators); optional.
    @Optional() private readonly extensions?: ChallengeExtensions,
  ) {}

  /** The 402 for `offer` on `resource`; `reason` explains why a payment that was sent bought nothing. */
  async required(
    offer: X402Offer,
    resource: X402Resource,
    requestId: string,
    reason?: string,
  ): Promise<PaymentRequiredError> {
    const accepts = await this.x402.accepts(offer, requestId);
    // Every challenge offers x402's payment-identifier, not required: a payment carrying an id is
    // remembered with its answer, and a retry with the same id and payload gets that answer again.
    const extensions = { ...this.extensions?.for(resource.url), [PAYMENT_IDENTIFIER]: PAYMENT_IDENTIFIER_DECLARATION };
    const paymentRequired: PaymentRequired = {
      x402Version: 2,
      ...(reason ? { error: reason } : {}),
      resource,
      accepts: accepts as never,
      extensions,
    };
    return new PaymentRequiredError(reason ?? Messages.paymentRequired, paymentRequired);
  }
}
