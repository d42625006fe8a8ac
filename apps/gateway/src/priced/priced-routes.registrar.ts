import { formatUsd } from '@appcat/contracts';
import { type PricedRoute, type RawQuery, ROUTE_TABLES } from '@appcat/routes';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GATEWAY_CONFIG } from '../config.provider.js';
import type { GatewayConfig } from '../config.js';
import { OK_MESSAGE, sendEnvelopeWithJsonData, sendErrorEnvelope } from '../envelope/envelope.js';
import { ErrorAnswers } from '../errors/error-answers.js';
import { HttpError, Messages } from '../errors/http-error.js';
import { methodsOtherThan } from '../http/http-methods.js';
import { requestTrace } from '../http/request-spans.js';
import { readIdempotencyKey } from '../idempotency/call-names.js';
import { PAYMENT_RESPONSE_HEADER } from '../payment/payment-challenge.js';
import { readPaymentCredentials } from '../payment/payment-credentials.js';
import { PricedCallService } from './priced-call.service.js';
import type { Charge } from './priced-result.js';

/** Header on credit-paid answers: what the key has left, so agents need no extra balance call. */
export const CREDITS_REMAINING_HEADER = 'x-credits-remaining';
/** UPSTREAM, CACHE or STALE: where the catalog got the data. */
export const CACHE_HEADER = 'x-cache';
/** The store's sources that produced the data (`itunes`, `feed`, …), comma-separated; absent when not known. */
export const UPSTREAM_SOURCE_HEADER = 'x-upstream-source';

// HEAD included: a HEAD must not run (and charge) the GET handler.
const OTHER_METHODS = methodsOtherThan('GET');
const METHOD_NOT_ALLOWED = new HttpError(405, Messages.methodNotAllowed, { allow: 'GET' });

/** `/api/apps/{appId}` → `/api/apps/:appId` */
export function toFastifyPath(specPath: string): string {
  return specPath.replace(/\{(\w+)\}/g, ':$1');
}

/**
 * The priced calls over HTTP: registers the priced routes from the store's route table straight on Fastify
 * (the hot path skips Nest's per-request pipeline), plus a 405 for every other method on those paths,
 * and renders each call's result as the envelope, with the charge and the data's origin in headers.
 */
@Injectable()
export class PricedRoutesRegistrar implements OnModuleInit {
  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly adapterHost: HttpAdapterHost,
    private readonly calls: PricedCallService,
    private readonly errors: ErrorAnswers,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    for (const route of ROUTE_TABLES[this.config.store].routes) {
      const url = toFastifyPath(route.path);
      fastify.get(url, { exposeHeadRoute: false }, (request, reply) => this.serve(route, request, reply));
      fastify.route({
        method: OTHER_METHODS,
        url,
        handler: (_request, reply) => sendErrorEnvelope(reply, this.errors.answer(METHOD_NOT_ALLOWED)),
      });
    }
  }

  private async serve(route: PricedRoute, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const trace = requestTrace(request);
    const result = await this.calls.call({
      route,
      pathParams: request.params as Record<string, string>,
      query: request.query as RawQuery,
      credentials: () => readPaymentCredentials(request.headers),
      idempotencyKey: () => readIdempotencyKey(request.headers),
      resourceUrl: () => this.config.publicBaseUrl + request.url,
      requestId: request.id,
      trace,
    });
    if (!result.ok) {
      sendErrorEnvelope(reply, this.errors.uncharged(result.error, route.id, { requestId: request.id, trace }));
      return;
    }
    const { answer } = result;
    chargeHeader(reply, answer.charge);
    // Say where the data came from: agents can tell a stale copy (served because the store failed) from fresh data.
    reply.header(CACHE_HEADER, answer.source.toUpperCase());
    if (answer.ageSeconds !== undefined) reply.header('age', String(Math.max(0, Math.floor(answer.ageSeconds))));
    if (answer.upstreamSource !== undefined) reply.header(UPSTREAM_SOURCE_HEADER, answer.upstreamSource);
    sendEnvelopeWithJsonData(reply, 200, OK_MESSAGE, answer.dataJson);
  }
}

/** The receipt (x402) or the balance left (credits). */
function chargeHeader(reply: FastifyReply, charge: Charge): void {
  if (charge.method === 'x402') reply.header(PAYMENT_RESPONSE_HEADER, charge.receipt.paymentResponse);
  else reply.header(CREDITS_REMAINING_HEADER, formatUsd(charge.balance));
}
