import { PRICED_ROUTES, type PricedRoute } from '@appcat/routes';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendEnvelope } from '../envelope/envelope.js';
import { HttpError, Messages } from '../errors/http-error.js';
import { GatewayOps } from '../ops/gateway-ops.js';
import { PricedCallService } from './priced-call.service.js';

const OTHER_METHODS = ['DELETE', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'] as const;

/** `/api/apps/{appId}` → `/api/apps/:appId` */
export function toFastifyPath(specPath: string): string {
  return specPath.replace(/\{(\w+)\}/g, ':$1');
}

/**
 * Registers the priced routes from the route table straight on Fastify (the hot path skips Nest's
 * per-request pipeline), plus a 405 for every other method on those paths.
 */
@Injectable()
export class PricedRoutesRegistrar implements OnModuleInit {
  private readonly logger = new Logger('Gateway');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly calls: PricedCallService,
    private readonly ops: GatewayOps,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    for (const route of PRICED_ROUTES) {
      const url = toFastifyPath(route.path);
      fastify.get(url, (request, reply) => this.serve(route, request, reply));
      fastify.route({
        method: [...OTHER_METHODS],
        url,
        handler: (_request, reply) => sendEnvelope(reply.header('allow', 'GET'), 405, Messages.methodNotAllowed),
      });
    }
  }

  private async serve(route: PricedRoute, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    try {
      await this.calls.handle(route, request, reply);
    } catch (error) {
      if (error instanceof HttpError) {
        this.ops.metrics.declines.inc({ reason: declineReason(error) });
        sendEnvelope(reply.headers(error.headers), error.status, error.message);
        return;
      }
      this.logger.error(`${route.id} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      sendEnvelope(reply, 500, Messages.internal);
    }
  }
}

/** A few stable labels, not the free-text message (which names parameters and amounts). */
export function declineReason(error: HttpError): string {
  switch (error.status) {
    case 400:
      return 'invalid_request';
    case 401:
      return 'invalid_key';
    case 402:
      return error.message === Messages.paymentRequired || error.message === Messages.topupRequired ? error.message : 'payment_refused';
    default:
      return error.status >= 500 ? 'dependency_failed' : `http_${error.status}`;
  }
}
