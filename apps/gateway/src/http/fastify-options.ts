import type { FastifyServerOptions } from 'fastify';
import type { Socket } from 'node:net';
import type { GatewayConfig } from '../config.js';
import { rawEnvelopeResponse, sendEnvelope } from '../envelope/envelope.js';
import { answerForOverlongPathParam } from './overlong-path-param.js';
import { requestIdFor } from './request-id.js';

/**
 * Fastify settings that keep every answer an envelope, including the ones Fastify gives before a
 * route runs: malformed URLs, oversized bodies, header overflows and broken request lines.
 */
export function fastifyOptions(config: GatewayConfig): FastifyServerOptions {
  return {
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    // A HEAD on a priced path must not run (and charge) the GET handler; HEAD gets 405 like other methods.
    exposeHeadRoutes: false,
    routerOptions: { maxParamLength: 512 },
    requestIdHeader: false,
    genReqId: requestIdFor,
    return503OnClosing: false,
    frameworkErrors: (error, request, reply) => {
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
        const answer = answerForOverlongPathParam(request.url);
        return sendEnvelope(reply, answer.status, answer.message);
      }
      const badUrl = error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_ASYNC_CONSTRAINT';
      return sendEnvelope(reply, badUrl ? 400 : 500, badUrl ? 'malformed url' : 'internal error');
    },
    clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => {
      if (!socket.writable) return socket.destroy();
      const response =
        error.code === 'HPE_HEADER_OVERFLOW'
          ? rawEnvelopeResponse(431, 'Request Header Fields Too Large', 'request headers too large')
          : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? rawEnvelopeResponse(408, 'Request Timeout', 'request timeout')
            : rawEnvelopeResponse(400, 'Bad Request', 'malformed request');
      socket.end(response);
    },
  };
}
