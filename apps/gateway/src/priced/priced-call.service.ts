import { type Context, GatewayMetrics, OUTCOME, withSpan } from '@appcat/ops';
import {
  type CatalogQuery,
  type CatalogReply,
  routeOffer,
  type X402AuthorizeRequest,
  type X402Offer,
  type X402Resource,
} from '@appcat/contracts';
import { type PricedRoute, type RawQuery, validateRouteInput } from '@appcat/routes';
import { Injectable } from '@nestjs/common';
import { CreditsClient } from '../credits/credits.client.js';
import { ChargeUnsureError, HttpError, NothingChargedError } from '../errors/http-error.js';
import { PaymentChallenge } from '../payment/payment-challenge.js';
import type { PaymentHold } from '../payment/payment-hold.js';
import { X402Checkout } from '../payment/x402-checkout.js';
import type { PaymentCredentials } from '../payment/payment-credentials.js';
import { pricedCallName } from '../idempotency/call-names.js';
import { RememberedCalls } from '../idempotency/remembered-calls.js';
import { CatalogClient } from './catalog.client.js';
import type { Charge, PricedResult } from './priced-result.js';

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
   * The request's trace context, when it is traced (sampled): the parent of the call's spans, given
   * explicitly since no context crosses an await (libs/ops tracing.ts). Undefined: nothing is traced.
   */
  trace?: Context;
  /** The `Idempotency-Key` the caller sent, if any (read after validation; a malformed one is a 400). */
  idempotencyKey?: () => string | undefined;
}

type Paying = Exclude<PaymentCredentials, { kind: 'none' }>;

/**
 * One priced call, in the order that keeps money safe: validate (a 400 never charges), read the
 * payment means, hold the payment (a credit reservation, or an x402 payment checked) while the
 * catalog's cache is read ahead (`catalog.peek`, which never asks the upstream), fetch on a miss, and
 * only with the data in hand capture the hold and deliver. Any failure after the hold gives it back:
 * a failed call is never charged. Data this gateway already holds (its near cache) needs no hold: the
 * call is charged in one step (a credit debit; an x402 payment checked, claimed and settled at once).
 * Knows no transport: `call` returns a result that the HTTP routes and the MCP tools render.
 */
@Injectable()
export class PricedCallService {
  /** The credit path's charge counter, its labels bound once (a labelled inc() hashes them on every call). */
  private readonly creditCharges: { inc(): void };

  constructor(
    private readonly credits: CreditsClient,
    private readonly catalog: CatalogClient,
    private readonly challenge: PaymentChallenge,
    private readonly x402Checkout: X402Checkout,
    private readonly metrics: GatewayMetrics,
    private readonly remembered: RememberedCalls,
  ) {
    this.creditCharges = metrics.charges.labels({ method: 'credits', network: 'none' });
  }

  /** Never rejects: every failure is a result, and none is charged. */
  async call(call: PricedCall): Promise<PricedResult> {
    try {
      const { route, requestId } = call;
      const input = withSpan(
        'gateway.validate',
        { 'appcat.route': route.id },
        (span) => {
          const checked = validateRouteInput(route, call.pathParams as Record<string, string>, call.query);
          span.set({ [OUTCOME]: checked.ok ? 'ok' : 'invalid' });
          return checked;
        },
        { parent: call.trace, leaf: true },
      );
      if (!input.ok) return { ok: false, error: new HttpError(400, input.message) };
      const query = route.toCatalogQuery(input.params);

      const credentials = call.credentials();
      if (credentials.kind === 'none') {
        const { offer, resource } = this.x402Terms(route, call.resourceUrl());
        return { ok: false, error: await this.challenge.required(offer, resource, requestId) };
      }
      const paid = () => this.paid(call, query, credentials);
      const name = pricedCallName(credentials, call.idempotencyKey, route.store, query);
      return await this.remembered.run(name, requestId, paid, call.trace);
    } catch (error) {
      return { ok: false, error };
    }
  }

  /** Holds the payment, fetches, captures, delivers (data in hand: charges in one step); throws only what comes before the hold. */
  private async paid(call: PricedCall, query: CatalogQuery, credentials: Paying): Promise<PricedResult> {
    const { requestId, trace } = call;
    const near = this.catalog.near(query);
    // Each step that moves money is one request to payments, whose span (named by its subject, on both
    // sides of NATS) is the step's in the call's trace: no span of the gateway's own wraps it.
    if (near) {
      // The data is in hand before any hop: one request takes the money (a debit; an x402 payment
      // checked, claimed and settled), nothing to give back. One whose answer was lost may have been
      // applied, as a lost capture may.
      const charge = await this.charge(call, credentials, trace).catch((error: unknown) => {
        throw chargeUnsure(error);
      });
      this.counted(charge);
      return delivered(charge, near);
    }
    // Read ahead while the payment is held: a fresh cached answer costs nothing upstream, so a call
    // refused payment has cost one cache read.
    const readAhead = this.catalog.peek(query, requestId, trace);
    const hold = await this.hold(call, credentials, trace);
    try {
      const data = await this.catalog.answer(await readAhead, query, requestId, trace);
      const charge = await hold.capture(trace).catch((error: unknown) => {
        throw chargeUnsure(error);
      });
      this.counted(charge);
      return delivered(charge, data);
    } catch (error) {
      hold.release(trace);
      return { ok: false, error };
    }
  }

  /**
   * Takes the price at once, for data in hand: a debit, or an x402 payment settled; rejects, charging
   * nothing, when refused. `trace`: the parent of its request's span.
   */
  private async charge(call: PricedCall, credentials: Paying, trace: Context | undefined): Promise<Charge> {
    const { route, requestId } = call;
    if (credentials.kind === 'credits') {
      const balance = await this.credits.debit(credentials.keyHash, route.price, route.id, requestId, trace);
      return { method: 'credits', balance };
    }
    return this.x402Checkout.pay(this.x402Request(call, credentials.paymentSignature), trace);
  }

  private counted(charge: Charge): void {
    if (charge.method === 'credits') this.creditCharges.inc();
    else this.metrics.charges.inc({ method: 'x402', network: charge.receipt.network });
  }

  /**
   * Reserves the price on the key, or checks the x402 payment; rejects, holding nothing, when it is
   * refused. `trace`: the parent of its request's span.
   */
  private hold(call: PricedCall, credentials: Paying, trace: Context | undefined): Promise<PaymentHold> {
    const { route, requestId } = call;
    if (credentials.kind === 'credits')
      return this.credits.reserve(credentials.keyHash, route.price, route.id, requestId, trace);
    return this.x402Checkout.authorize(this.x402Request(call, credentials.paymentSignature), trace);
  }

  /** What payments is asked to check, claim or settle for an x402-paid call. */
  private x402Request(call: PricedCall, paymentSignature: string): X402AuthorizeRequest {
    const { offer, resource } = this.x402Terms(call.route, call.resourceUrl());
    return { paymentSignature, offer, resource, route: call.route.id, requestId: call.requestId };
  }

  /** What x402 sells on this call; built only when x402 is involved, not on the credit path. */
  private x402Terms(route: PricedRoute, resourceUrl: string): { offer: X402Offer; resource: X402Resource } {
    return {
      offer: routeOffer(route),
      resource: { url: resourceUrl, description: route.description, mimeType: 'application/json' },
    };
  }
}

/**
 * A capture or debit refused (401, 402) charged nothing; one that met a failing dependency may have been
 * applied, unless payments says it was not (NothingChargedError: the facilitator was never reached).
 */
function chargeUnsure(error: unknown): unknown {
  return error instanceof HttpError && error.status >= 500 && !(error instanceof NothingChargedError)
    ? new ChargeUnsureError(error)
    : error;
}

function delivered(charge: Charge, data: CatalogReply): PricedResult {
  return {
    ok: true,
    answer: {
      charge,
      dataJson: data.dataJson,
      source: data.source ?? 'upstream',
      ageSeconds: data.ageSeconds,
      upstreamSource: data.upstreamSource,
    },
  };
}
