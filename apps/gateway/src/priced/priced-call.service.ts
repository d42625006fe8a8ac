import { type CatalogQuery, type CatalogReply, type CatalogSource, formatUsd, isCatalogUnavailable, routeOffer, type X402Offer, type X402Receipt, type X402Resource } from '@appcat/contracts';
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
import { type CallName, keyedCallName, paymentCallName, readIdempotencyKey } from '../idempotency/call-names.js';
import { RememberedCalls } from '../idempotency/remembered-calls.js';
import { CatalogClient } from './catalog.client.js';
import { UpstreamOutage } from './upstream-outage.js';

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
  /** The `Idempotency-Key` the caller sent, if any (read after validation; a malformed one is a 400). */
  idempotencyKey?: () => string | undefined;
}

/** What a priced call delivers besides its charge: what a named call's record keeps. */
export type Delivered = Omit<PricedAnswer, 'charge'>;

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
    private readonly remembered: RememberedCalls,
  ) {}

  /** Upstream outages lately reported by the catalog, per replica (see UpstreamOutage). */
  private readonly outage = new UpstreamOutage();

  /** The HTTP priced route: the envelope, with the charge and the data's origin in headers. */
  async handle(route: PricedRoute, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const answer = await this.call({
      route,
      pathParams: request.params as Record<string, string>,
      query: request.query as RawQuery,
      credentials: () => readPaymentCredentials(request.headers),
      idempotencyKey: () => readIdempotencyKey(request.headers),
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
    const name = this.nameOf(call, credentials, query);
    if (!name) return this.charged(call, query, credentials);
    // A named call: a retry of it gets the first answer again, without a second charge.
    let charge: Charge | undefined;
    const delivered = await this.remembered.run<Delivered>(
      name,
      requestId,
      async (charged) => {
        const onCharged = (made: Charge) => {
          charge = made;
          charged(made.method === 'credits' ? { method: 'credits', balance: made.balance.toString() } : made);
          call.onCharged?.(made);
        };
        const { charge: _made, ...answer } = await this.charged({ ...call, onCharged }, query, credentials);
        return answer;
      },
      (remembered) => {
        const made = remembered.charge;
        charge = made.method === 'credits' ? { method: 'credits', balance: BigInt(made.balance) } : made;
        call.onCharged?.(charge);
        if (remembered.error) throw new HttpError(remembered.error.status, remembered.error.message, remembered.error.headers);
        return remembered.answer as Delivered;
      },
    );
    return { ...delivered, charge: charge! };
  }

  /** What names this call for remembering its answer: the x402 payment-identifier, or an Idempotency-Key on a credit-paid call. */
  private nameOf(call: PricedCall, credentials: PaymentCredentials, query: CatalogQuery): CallName | undefined {
    if (credentials.kind === 'x402') return paymentCallName(credentials.paymentSignature);
    if (credentials.kind !== 'credits') return undefined;
    const key = call.idempotencyKey?.();
    return key === undefined ? undefined : keyedCallName(credentials.keyHash, key, query);
  }

  /** Charges the call and delivers it (steps 3 to 5). */
  private async charged(call: PricedCall, query: CatalogQuery, credentials: Exclude<PaymentCredentials, { kind: 'none' }>): Promise<PricedAnswer> {
    const { route, requestId } = call;
    // Read ahead while the call is charged: a fresh cached answer costs nothing upstream, so a call that
    // then fails to pay has cost one cache read; it is delivered only once the charge has succeeded.
    const readAhead = this.catalog.peek(query, requestId);
    // While an upstream was reported down moments ago, hear the cache read before charging: a call
    // the catalog knows it cannot deliver (upstream unavailable, no copy held) is refused uncharged.
    if (this.outage.suspected()) {
      const early = await readAhead;
      if (isCatalogUnavailable(early)) throw this.outage.refusal(early);
    }
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

    const peeked = await readAhead;
    // Too late to spare this charge; the next calls on this replica wait for the read before charging.
    if (isCatalogUnavailable(peeked)) this.outage.note(peeked);
    const answer = peeked && !isCatalogUnavailable(peeked) ? peeked : await this.fetchAfterCharge(query, requestId);
    return { charge, dataJson: answer.dataJson, source: answer.source ?? 'upstream', ...(answer.ageSeconds === undefined ? {} : { ageSeconds: answer.ageSeconds }) };
  }

  /** The upstream fetch a charged miss makes; its failure makes this replica check before the next charges. */
  private async fetchAfterCharge(query: CatalogQuery, requestId: string): Promise<CatalogReply> {
    try {
      return await this.catalog.fetch(query, requestId);
    } catch (error) {
      if (error instanceof HttpError && error.status === 502) this.outage.failed();
      throw error;
    }
  }

  /** What x402 sells on this call; built only when x402 is involved, not on the credit path. */
  private x402Terms(route: PricedRoute, resourceUrl: string): { offer: X402Offer; resource: X402Resource } {
    return {
      offer: routeOffer(route),
      resource: { url: resourceUrl, description: route.description, mimeType: 'application/json' },
    };
  }
}
