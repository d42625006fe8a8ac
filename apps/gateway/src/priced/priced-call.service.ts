import { type CatalogSource, formatUsd, routeOffer, type X402Offer, type X402Receipt, type X402Resource } from '@appcat/contracts';
import { type PricedRoute, type RawQuery, validateRouteInput } from '@appcat/routes';
import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GATEWAY_CONFIG } from '../config.provider.js';
import type { GatewayConfig } from '../config.js';
import { CreditsClient } from '../credits/credits.client.js';
import { OK_MESSAGE, sendEnvelopeWithJsonData } from '../envelope/envelope.js';
import { HttpError } from '../errors/http-error.js';
import { PAYMENT_RESPONSE_HEADER, PaymentChallenge } from '../payment/payment-challenge.js';
import { X402PaymentService } from '../payment/x402-payment.service.js';
import { type PaymentCredentials, readPaymentCredentials } from '../payment/payment-credentials.js';
import { GatewayOps } from '../ops/gateway-ops.js';
import { CatalogClient } from './catalog.client.js';

/** Header on credit-paid answers: what the key has left, so agents need no extra balance call. */
export const CREDITS_REMAINING_HEADER = 'x-credits-remaining';
/** UPSTREAM, CACHE or STALE: where the catalog got the data. */
export const CACHE_HEADER = 'x-cache';

/** How a call was paid for: a debit (with the balance it left) or a settled x402 payment. */
export type Charge = { method: 'credits'; balance: bigint } | { method: 'x402'; receipt: X402Receipt };

/** One priced call as any transport (HTTP, MCP) hands it over. */
export interface PricedCall {
  route: PricedRoute;
  pathParams: Record<string, string | undefined>;
  query: RawQuery;
  /**
   * Reads the payment means; called only after the parameters are valid, so a bad parameter (400)
   * wins over a bad key (401) and an invalid call never reaches payments.
   */
  credentials: () => PaymentCredentials;
  /**
   * The x402 resource URL: the request URL over HTTP, `mcp://tool/<name>` over MCP. Asked only when
   * x402 is involved, so the credit path builds no URL.
   */
  resourceUrl: () => string;
  requestId: string;
  /**
   * Told as soon as the call is charged, before the catalog answer is awaited: a catalog failure after the
   * charge still lets the caller see the receipt or the balance left.
   */
  onCharged?: (charge: Charge) => void;
}

export interface PricedAnswer {
  charge: Charge;
  /** The catalog's data as JSON text, the envelope's `data` (decoded only by transports that need it, such as MCP). */
  dataJson: string;
  source: CatalogSource;
  ageSeconds?: number;
}

/**
 * One priced call, in the order that keeps money safe: validate (a 400 never charges), read the
 * payment means, charge (a debit or a settlement), and only then deliver. While the charge is under
 * way the catalog's cache is read ahead (`catalog.peek`, which never asks the upstream); only when it
 * misses is the catalog asked again, after the charge, to fetch from the upstream. A catalog
 * failure after the charge is a 502 and the charge stands (spec §7). `call` is the transport-neutral
 * part shared by HTTP and MCP; every failure is an HttpError.
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

  /** The HTTP priced route: the envelope, with the charge and the data's origin in headers. */
  async handle(route: PricedRoute, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const answer = await this.call({
      route,
      pathParams: request.params as Record<string, string>,
      query: request.query as RawQuery,
      credentials: () => readPaymentCredentials(request.headers),
      resourceUrl: () => this.config.publicBaseUrl + request.url,
      requestId: request.id,
      onCharged: (charge) => {
        if (charge.method === 'x402') reply.header(PAYMENT_RESPONSE_HEADER, charge.receipt.paymentResponse);
        else reply.header(CREDITS_REMAINING_HEADER, formatUsd(charge.balance));
      },
    });
    // Say where the data came from: agents can tell a stale copy (served because the store failed) from fresh data.
    reply.header(CACHE_HEADER, answer.source.toUpperCase());
    if (answer.ageSeconds !== undefined) reply.header('age', String(Math.max(0, Math.floor(answer.ageSeconds))));
    sendEnvelopeWithJsonData(reply, 200, OK_MESSAGE, answer.dataJson);
  }

  async call(call: PricedCall): Promise<PricedAnswer> {
    const { route, requestId } = call;
    const input = validateRouteInput(route, call.pathParams as Record<string, string>, call.query);
    if (!input.ok) throw new HttpError(400, input.message);
    const query = route.toCatalogQuery(input.params);

    const credentials = call.credentials();
    if (credentials.kind === 'none') {
      const { offer, resource } = this.x402Terms(route, call.resourceUrl());
      throw await this.challenge.required(offer, resource, requestId);
    }
    // Read ahead while the call is charged: a fresh cached answer costs nothing upstream, so a call that
    // then fails to pay has cost one cache read; it is delivered only once the charge has succeeded.
    const readAhead = this.catalog.peek(query, requestId);
    let charge: Charge;
    switch (credentials.kind) {
      case 'x402': {
        const { offer, resource } = this.x402Terms(route, call.resourceUrl());
        const receipt = await this.x402Payments.pay(credentials.paymentSignature, offer, resource, route.id, requestId);
        charge = { method: 'x402', receipt };
        this.ops.metrics.charges.inc({ method: 'x402', network: receipt.network });
        break;
      }
      case 'credits': {
        const balance = await this.credits.debit(credentials.keyHash, route.price, route.id, requestId);
        charge = { method: 'credits', balance };
        this.ops.metrics.charges.inc({ method: 'credits', network: 'none' });
        break;
      }
    }
    call.onCharged?.(charge);

    const answer = (await readAhead) ?? (await this.catalog.fetch(query, requestId));
    return { charge, dataJson: answer.dataJson, source: answer.source ?? 'upstream', ...(answer.ageSeconds === undefined ? {} : { ageSeconds: answer.ageSeconds }) };
  }

  /** What x402 sells on this call; built only when x402 is involved, not on the credit path. */
  private x402Terms(route: PricedRoute, resourceUrl: string): { offer: X402Offer; resource: X402Resource } {
    return {
      offer: routeOffer(route),
      resource: { url: resourceUrl, description: route.description, mimeType: 'application/json' },
    };
  }
}
