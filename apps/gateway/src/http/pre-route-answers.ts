import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { rawEnvelopeResponse, sendErrorEnvelope } from '../envelope/envelope.js';
import { ErrorAnswers } from '../errors/error-answers.js';
import { HttpError, Messages } from '../errors/http-error.js';
import { requestIdFor } from './request-id.js';

/** RFC 9112 §3.2: an HTTP/1.1 request without Host is a 400. */
const HOST_REQUIRED = new HttpError(400, Messages.hostRequired, { connection: 'close' });
/** RFC 9110 §10.1.1: an expectation other than 100-continue that the server cannot meet. */
const EXPECTATION_FAILED = new HttpError(417, Messages.expectationFailed);
/**
 * CONNECT asks for a tunnel, which the gateway never opens: the method is not allowed (a 405, like
 * other methods the gateway does not serve), not a malformed request (400) nor a server fault (5xx,
 * which would count proxy scanners as our failures). Allow names the methods the gateway serves.
 */
const CONNECT_NOT_ALLOWED = new HttpError(405, Messages.methodNotAllowed, { allow: 'GET, POST' });

/**
 * Envelopes for the requests Node answers by itself before any route runs, where it would send a bare
 * status or nothing at all: an HTTP/1.1 request without Host (Node's check is turned off in
 * fastifyOptions and made here, where the reply can be an envelope), an `Expect` other than
 * 100-continue (bare 417), and CONNECT (Node closes the socket unanswered when nobody listens).
 */
@Injectable()
export class PreRouteAnswers implements OnModuleInit {
  /** Requests Node found with an unmet expectation, handed to Fastify so the answer has the request id and is counted. */
  private readonly unmetExpectations = new WeakSet<IncomingMessage>();

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly errors: ErrorAnswers,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onRequest', (request, reply, done) => {
      const raw = request.raw;
      const refusal =
        raw.headers.host === undefined && raw.httpVersion === '1.1'
          ? HOST_REQUIRED
          : raw.headers.expect !== undefined && this.unmetExpectations.has(raw)
            ? EXPECTATION_FAILED
            : undefined;
      if (refusal === undefined) return done();
      sendErrorEnvelope(reply, this.errors.answer(refusal));
    });
    fastify.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
      this.unmetExpectations.add(request);
      fastify.routing(request, response);
    });
    fastify.server.on('connect', (request: IncomingMessage, socket: Duplex) => {
      // Node no longer watches a socket it handed over; an error on it must not go unheard.
      socket.on('error', () => socket.destroy());
      socket.end(rawEnvelopeResponse(this.errors.answer(CONNECT_NOT_ALLOWED), requestIdFor(request)));
    });
  }
}
