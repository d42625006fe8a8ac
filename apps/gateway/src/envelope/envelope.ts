import type { FastifyReply } from 'fastify';

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

/** Writes an envelope whose `data` is already JSON text (the catalog's answer) as it is, without decoding it. */
export function sendEnvelopeWithJsonData(reply: FastifyReply, status: number, message: string, dataJson: string): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(`{"status":${status},"message":${JSON.stringify(message)},"data":${dataJson}}`);
}

/** The raw HTTP/1.1 response for errors raised before Fastify has a request (header overflow, bad request line). */
export function rawEnvelopeResponse(status: number, reason: string, message: string): string {
  const body = JSON.stringify(envelope(status, message));
  return (
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}
