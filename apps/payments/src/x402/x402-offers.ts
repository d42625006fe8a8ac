import { acceptsKey, ErrorCode, offersNetworkSet, type X402Offer, type X402Requirement } from '@appcat/contracts';
import { WireException } from '@appcat/microservice';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { FacilitatorConnection } from './facilitator-connection.js';
import { describe, invalid, mismatchReason } from './payment-payload.js';

/** Offers kept at most; more (never, with our prices) clears the cache. */
const MAX_CACHED_OFFERS = 256;

/**
 * What x402 payments this service takes: the `accepts` list of an offer (a price and a network set), built
 * with @x402/core from the network table and kept once built, and the entry a payment answers.
 */
@Injectable()
export class X402Offers {
  private readonly logger = new Logger('X402Offers');
  private readonly cache = new Map<string, X402Requirement[]>();
  private readonly unsupportedWarned = new Set<string>();

  constructor(@Inject(FacilitatorConnection) private readonly connection: FacilitatorConnection) {}

  /** The `accepts` list for an offer, in offer order; networks the facilitator does not support are left out. */
  async accepts(offer: X402Offer): Promise<X402Requirement[]> {
    const cacheKey = acceptsKey(offer);
    const cached = this.cache.get(cacheKey);
    if (cached) return cached;
    await this.connection.ready();
    const accepts: X402Requirement[] = [];
    for (const network of this.connection.config.networks) {
      if (!offersNetworkSet(offer.networks, network.set)) continue;
      try {
        const [requirement] = await this.connection.server.buildPaymentRequirements({
          scheme: 'exact',
          network: network.network as `${string}:${string}`,
          payTo: network.payTo as string,
          price: {
            amount: offer.price,
            asset: network.asset,
            extra: network.kind === 'evm' ? { name: network.assetName, version: network.assetVersion } : {},
          },
          maxTimeoutSeconds: this.connection.config.maxTimeoutSeconds,
        });
        accepts.push(requirement as X402Requirement);
      } catch (error) {
        if (!this.unsupportedWarned.has(network.network)) {
          this.unsupportedWarned.add(network.network);
          this.logger.warn(`x402 network ${network.name} (${network.network}) left out: ${describe(error)}`);
        }
      }
    }
    if (accepts.length === 0)
      throw new WireException(
        ErrorCode.FacilitatorUnavailable,
        'payment facilitator supports none of the configured networks',
      );
    if (this.cache.size >= MAX_CACHED_OFFERS) this.cache.clear();
    this.cache.set(cacheKey, accepts);
    return accepts;
  }

  /** The entry of `offer` that `payload` accepted; PAYMENT_INVALID naming the field that differs when none. */
  async requirementFor(payload: PaymentPayload, offer: X402Offer): Promise<PaymentRequirements> {
    const accepts = await this.accepts(offer);
    const requirement = this.connection.server.findMatchingRequirements(accepts as PaymentRequirements[], payload);
    if (!requirement) throw invalid(mismatchReason(payload, accepts));
    return requirement;
  }
}
