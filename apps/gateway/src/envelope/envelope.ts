import { OUTCOME, withSpan } from '@appcat/ops';
import type { FastifyReply } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { ErrorAnswer } from '../errors/error-answers.js';
import { requestTrace } from '../http/request-spans.js';

/** The one response shape of the service (spec §2): the HTTP status is repeated in `status`. */
export interface Envelope {
  status: number;
  message: string;
  data: unknown;
}

export const OK_MESSAGE = 'ok';

export function envelope(status: number, message: string, data: unknown = null): Envelope {
  return { status, message, data };
}

/** Writes an envelope with matching HTTP status and a JSON content type. */
export function sendEnvelope(reply: FastifyReply, status: number, message: string, data: unknown = null): FastifyReply {
  return sendEnvelopeWithJsonData(reply, status, message, JSON.stringify(data));
}

/**
 * Writes an envelope whose `data` is already JSON text (the catalog's answer) as it is, without decoding
 * it. Every envelope Fastify sends passes here: with tracing on, the `gateway.envelope` span.
 */
export function sendEnvelopeWithJsonData(
  reply: FastifyReply,
  status: number,
  message: string,
  dataJson: string,
): FastifyReply {
  // The work returns nothing: a reply is a thenable (resolved once the response has finished), which
  // `withSpan` would wait on, and return its `then`'s result instead of the reply.
  withSpan(
    'gateway.envelope',
    { 'http.response.status_code': status },
    (span) => {
      span.set({ [OUTCOME]: status < 400 ? 'ok' : `http_${status}` });
      reply
        .code(status)
        .type('application/json; charset=utf-8')
        .send(`{"status":${status},"message":${JSON.stringify(message)},"data":${dataJson}}`);
    },
    // Writing the answer starts no span: the envelope's is a leaf.
    { parent: requestTrace(reply.request), leaf: true },
  );
  return reply;
}

/** Writes a failure's answer: its headers, and the envelope with its status and message. */
export function sendErrorEnvelope(reply: FastifyReply, answer: ErrorAnswer): FastifyReply {
  return sendEnvelope(reply.headers(answer.headers), answer.status, answer.message);
}

/**
 * The raw HTTP/1.1 response, closing the connection, for a failure answered on the socket because Node
 * gave no request to answer on (header overflow, bad request line, CONNECT); with the request id when
 * there was a request.
 */
export function rawEnvelopeResponse(answer: ErrorAnswer, requestId?: string): string {
  const body = JSON.stringify(envelope(answer.status, answer.message));
  let head = `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\n`;
  for (const [name, value] of Object.entries(answer.headers)) head += `${name}: ${value}\r\n`;
  if (requestId !== undefined) head += `x-request-id: ${requestId}\r\n`;
  return `${head}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}
