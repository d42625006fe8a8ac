import { GatewayMetrics } from '@appcat/ops';
import {
  type CatalogQuery,
  type CatalogReply,
  isCatalogUnavailable,
  routeOffer,
  type X402Offer,
  type X402Resource,
} from '@appcat/contracts';
import { type PricedRoute, type RawQuery, validateRouteInput } from '@appcat/routes';
import { Injectable } from '@nestjs/common';
import { CreditsClient } from '../credits/credits.client.js';
import { HttpError } from '../errors/http-error.js';
import { PaymentChallenge } from '../payment/payment-challenge.js';
import { X402PaymentService } from '../payment/x402-payment.service.js';
import type { PaymentCredentials } from '../payment/payment-credentials.js';
import { type CallName, keyedCallName, paymentCallName } from '../idempotency/call-names.js';
import { RememberedCalls } from '../idempotency/remembered-calls.js';
import { CatalogClient } from './catalog.client.js';
import type { Charge, PricedAnswer, PricedResult } from './priced-result.js';
import { UpstreamOutage } from './upstream-outage.js';

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
  /** The `Idempotency-Key` the caller sent, if any (read after validation; a malformed one is a 400). */
  idempotencyKey?: () => string | undefined;
}

/** What a named call's record keeps of a delivered call: everything but the charge, which it keeps apart. */
type Delivered = Omit<PricedAnswer, 'charge'>;

/**
 * One priced call, in the order that keeps money safe: validate (a 400 never charges), read the
 * payment means, charge (a debit or a settlement), and only then deliver. While the charge is under
 * way the catalog's cache is read ahead (`catalog.peek`, which never asks the upstream); only when it
 * misses is the catalog asked again, after the charge, to fetch from the upstream. A catalog
 * failure after the charge is a 502 and the charge stands (spec §7). Knows no transport: `call`
 * returns a result that the HTTP routes and the MCP tools render.
 */
@Injectable()
export class PricedCallService {
  /** The credit path's charge counter, its labels bound once (a labelled inc() hashes them on every call). */
  private readonly creditCharges: { inc(): void };

  constructor(
    private readonly credits: CreditsClient,
    private readonly catalog: CatalogClient,
    private readonly challenge: PaymentChallenge,
    private readonly x402Payments: X402PaymentService,
    private readonly metrics: GatewayMetrics,
    private readonly remembered: RememberedCalls,
  ) {
    this.creditCharges = metrics.charges.labels({ method: 'credits', network: 'none' });
  }

  /** Upstream outages lately reported by the catalog, per replica (see UpstreamOutage). */
  private readonly outage = new UpstreamOutage();

  /** Never rejects: every failure is a result, with the charge when one was made before it. */
  async call(call: PricedCall): Promise<PricedResult> {
    try {
      const { route, requestId } = call;
      const input = validateRouteInput(route, call.pathParams as Record<string, string>, call.query);
      if (!input.ok) return { ok: false, error: new HttpError(400, input.message) };
      const query = route.toCatalogQuery(input.params);

      const credentials = call.credentials();
      if (credentials.kind === 'none') {
        const { offer, resource } = this.x402Terms(route, call.resourceUrl());
        return { ok: false, error: await this.challenge.required(offer, resource, requestId) };
      }
      const name = this.nameOf(call, credentials, query);
      return name ? await this.named(name, call, query, credentials) : await this.charged(call, query, credentials);
    } catch (error) {
      // Thrown before anything was charged: a failure after a charge is a result of `charged` or `named`.
      return { ok: false, error };
    }
  }

  /**
   * A named call: a retry of it gets the first result again, without a second charge. RememberedCalls
   * keeps what a charged call delivered, or the HttpError it ended with after the charge.
   */
  private async named(
    name: CallName,
    call: PricedCall,
    query: CatalogQuery,
    credentials: Exclude<PaymentCredentials, { kind: 'none' }>,
  ): Promise<PricedResult> {
    let charge: Charge | undefined;
    try {
      const delivered = await this.remembered.run<Delivered>(
        name,
        call.requestId,
        async (charged) => {
          const result = await this.charged(call, query, credentials);
          charge = result.ok ? result.answer.charge : result.charge;
          if (charge)
            charged(charge.method === 'credits' ? { method: 'credits', balance: charge.balance.toString() } : charge);
          if (!result.ok) throw result.error;
          const { dataJson, source, ageSeconds } = result.answer;
          return { dataJson, source, ageSeconds };
        },
        (remembered) => {
          const made = remembered.charge;
          charge = made.method === 'credits' ? { method: 'credits', balance: BigInt(made.balance) } : made;
          if (remembered.error)
            throw new HttpError(remembered.error.status, remembered.error.message, remembered.error.headers);
          return remembered.answer as Delivered;
        },
      );
      return { ok: true, answer: { ...delivered, charge: charge! } };
    } catch (error) {
      return { ok: false, error, charge };
    }
  }

  /** What names this call for remembering its answer: the x402 payment-identifier, or an Idempotency-Key on a credit-paid call. */
  private nameOf(call: PricedCall, credentials: PaymentCredentials, query: CatalogQuery): CallName | undefined {
    if (credentials.kind === 'x402') return paymentCallName(credentials.paymentSignature);
    if (credentials.kind !== 'credits') return undefined;
    const key = call.idempotencyKey?.();
    // The store is part of the request: the same query at another store's address is another call.
    return key === undefined
      ? undefined
      : keyedCallName(credentials.keyHash, key, { store: call.route.store, ...query });
  }

  /** Charges the call and delivers it (steps 3 to 5); throws only what happens before the charge. */
  private async charged(
    call: PricedCall,
    query: CatalogQuery,
    credentials: Exclude<PaymentCredentials, { kind: 'none' }>,
  ): Promise<PricedResult> {
    const { route, requestId } = call;
    // Read ahead while the call is charged: a fresh cached answer costs nothing upstream, so a call that
    // then fails to pay has cost one cache read; it is delivered only once the charge has succeeded.
    const readAhead = this.catalog.peek(query, requestId);
    // While an upstream was reported down moments ago, hear the cache read before charging: a call
    // the catalog knows it cannot deliver (upstream unavailable, no copy held) is refused uncharged.
    if (this.outage.suspected()) {
      const early = await readAhead;
      if (isCatalogUnavailable(early)) return { ok: false, error: this.outage.refusal(early) };
    }
    let charge: Charge;
    switch (credentials.kind) {
      case 'x402': {
        const { offer, resource } = this.x402Terms(route, call.resourceUrl());
        const receipt = await this.x402Payments.pay(credentials.paymentSignature, offer, resource, route.id, requestId);
        charge = { method: 'x402', receipt };
        this.metrics.charges.inc({ method: 'x402', network: receipt.network });
        break;
      }
      case 'credits': {
        const balance = await this.credits.debit(credentials.keyHash, route.price, route.id, requestId);
        charge = { method: 'credits', balance };
        this.creditCharges.inc();
        break;
      }
    }

    try {
      const peeked = await readAhead;
      // Too late to spare this charge; the next calls on this replica wait for the read before charging.
      if (isCatalogUnavailable(peeked)) this.outage.note(peeked);
      const answer = peeked && !isCatalogUnavailable(peeked) ? peeked : await this.fetchAfterCharge(query, requestId);
      return {
        ok: true,
        answer: {
          charge,
          dataJson: answer.dataJson,
          source: answer.source ?? 'upstream',
          ageSeconds: answer.ageSeconds,
        },
      };
    } catch (error) {
      // The charge stands (spec §7), and the failure reports it.
      return { ok: false, error, charge };
    }
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
