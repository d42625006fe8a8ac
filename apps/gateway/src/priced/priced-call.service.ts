import { formatUsd, type X402Offer, type X402Resource } from '@appcat/contracts';
import { type PricedRoute, type RawQuery, validateRouteInput } from '@appcat/routes';
import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GATEWAY_CONFIG } from '../config.provider.js';
import type { GatewayConfig } from '../config.js';
import { CreditsClient } from '../credits/credits.client.js';
import { OK_MESSAGE, sendEnvelope } from '../envelope/envelope.js';
import { HttpError } from '../errors/http-error.js';
import { PAYMENT_RESPONSE_HEADER, PaymentChallenge } from '../payment/payment-challenge.js';
import { X402PaymentService } from '../payment/x402-payment.service.js';
import { readPaymentCredentials } from '../payment/payment-credentials.js';
import { GatewayOps } from '../ops/gateway-ops.js';
import { CatalogClient } from './catalog.client.js';

/** Header on credit-paid answers: what the key has left, so agents need no extra balance call. */
export const CREDITS_REMAINING_HEADER = 'x-credits-remaining';
/** UPSTREAM, CACHE or STALE: where the catalog got the data. */
export const CACHE_HEADER = 'x-cache';

/**
 * One priced call, in the order that keeps money safe: validate (a 400 never charges), read the
 * payment means, charge (a debit or a settlement), and only then fetch from the catalog. A catalog
 * failure after the charge is a 502 and the charge stands (spec §7).
 */
@Injectable()
export class PricedCallService {
  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly credits: CreditsClient,
    private readonly catalog: CatalogClient,
    private readonly challenge: PaymentChallenge,
    private readonly x402Payments: X402PaymentService,
    private readonly ops: GatewayOps,
  ) {}

  async handle(route: PricedRoute, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const input = validateRouteInput(route, request.params as Record<string, string>, request.query as RawQuery);
    if (!input.ok) throw new HttpError(400, input.message);
    const query = route.toCatalogQuery(input.params);

    const credentials = readPaymentCredentials(request.headers);
    switch (credentials.kind) {
      case 'none': {
        const { offer, resource } = this.x402Terms(route, request);
        throw await this.challenge.required(offer, resource, request.id);
      }
      case 'x402': {
        const { offer, resource } = this.x402Terms(route, request);
        const receipt = await this.x402Payments.pay(credentials.paymentSignature, offer, resource, route.id, request.id);
        reply.header(PAYMENT_RESPONSE_HEADER, receipt.paymentResponse);
        this.ops.metrics.charges.inc({ method: 'x402', network: receipt.network });
        break;
      }
      case 'credits': {
        const balance = await this.credits.debit(credentials.keyHash, route.price, route.id, request.id);
        reply.header(CREDITS_REMAINING_HEADER, formatUsd(balance));
        this.ops.metrics.charges.inc({ method: 'credits', network: 'none' });
        break;
      }
    }

    const answer = await this.catalog.fetch(query, request.id);
    // Say where the data came from: agents can tell a stale copy (served because the store failed) from fresh data.
    reply.header(CACHE_HEADER, (answer.source ?? 'upstream').toUpperCase());
    if (answer.ageSeconds !== undefined) reply.header('age', String(Math.max(0, Math.floor(answer.ageSeconds))));
    sendEnvelope(reply, 200, OK_MESSAGE, answer.data);
  }

  /** What x402 sells on this request; built only when x402 is involved, not on the credit path. */
  private x402Terms(route: PricedRoute, request: FastifyRequest): { offer: X402Offer; resource: X402Resource } {
    return {
      offer: { price: route.price.toString(), networks: route.networks },
      resource: { url: this.config.publicBaseUrl + request.url, description: route.description, mimeType: 'application/json' },
    };
  }
}
