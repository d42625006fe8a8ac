import { ROUTE_TABLES } from '@appcat/routes';
import type { FastifyHttpOptions } from 'fastify';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { GatewayConfig } from '../config.js';
import { rawEnvelopeResponse, sendErrorEnvelope } from '../envelope/envelope.js';
import type { ErrorAnswer } from '../errors/error-answers.js';
import { overlongPathParamError } from './overlong-path-param.js';
import { requestIdFor } from './request-id.js';

/**
 * Fastify settings that keep every answer an envelope, including the ones Fastify and Node give before
 * a route runs: malformed URLs, oversized bodies, header overflows and broken request lines. `answer`
 * is the gateway's one mapping from a failure to its answer (ErrorAnswers), called only while serving.
 */
export function fastifyOptions(
  config: GatewayConfig,
  answer: (error: unknown) => ErrorAnswer,
): FastifyHttpOptions<Server> & { http: object } {
  return {
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    // A free page answers HEAD as GET; the priced routes turn it off (a HEAD must not charge) and answer 405.
    exposeHeadRoutes: true,
    routerOptions: { maxParamLength: 512 },
    requestIdHeader: false,
    genReqId: requestIdFor,
    // While closing, requests still in reach are served as usual rather than with Fastify's bare 503.
    return503OnClosing: false,
    // Node would answer an HTTP/1.1 request without Host with a bare 400 before Fastify sees it; the
    // gateway answers it with the envelope instead (PreRouteAnswers).
    http: { requireHostHeader: false },
    frameworkErrors: (error, request, reply) =>
      sendErrorEnvelope(
        reply,
        answer(
          error.code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? overlongPathParamError(request.url, ROUTE_TABLES[config.store].routes)
            : error,
        ),
      ),
    clientErrorHandler: (error: Error, socket: Socket) => {
      if (!socket.writable) return socket.destroy();
      socket.end(rawEnvelopeResponse(answer(error)));
    },
  };
}
