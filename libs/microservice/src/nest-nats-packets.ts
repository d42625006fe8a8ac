import type { Msg } from '@nats-io/transport-node';

/**
 * Nest's NATS packet format, which our client and server write themselves rather than through Nest's
 * ClientNats and serializers:
 *
 * - NatsRpcClient sends requests in it instead of using ClientNats, which subscribes a new inbox for every
 *   request (a SUB and an UNSUB on the wire each time), and instead of the NATS client's own `request()`,
 *   which builds an Error with a stack trace for every request that succeeds.
 * - DrainingNatsServer writes its replies in it, except a JsonTextReply (json-text-reply.ts).
 *
 * Nest does not document the format as an API, so it lives here only, and nest-nats-packets.spec.ts
 * round-trips it with Nest's own ClientNats and ServerNats over a real nats-server: a Nest release that
 * changes it fails there.
 */

/** A request: `id` marks one that wants a reply (an event has none). */
export interface NestRequestPacket {
  pattern: string;
  data: unknown;
  id?: string;
}

/** A reply: the handler's `response`, or `err` (a WireError from our filter), and whether the stream is done. */
export interface NestReplyPacket {
  id?: string;
  response?: unknown;
  err?: unknown;
  isDisposed?: boolean;
}

/** The request body Nest's ServerNats reads: the subject as `pattern`, the payload, the caller's id. */
export function encodeNestRequest(subject: string, data: unknown, id: string): string {
  return JSON.stringify({ pattern: subject, data, id } satisfies NestRequestPacket);
}

/** A reply's `response` already written as JSON text (a part of a batch reply), put into the packet as it is. */
export class EncodedResponse {
  constructor(readonly json: string) {}
}

/** A reply body as Nest's own NATS serializer writes it (and ClientNats reads it). */
export function encodeNestReply(packet: NestReplyPacket): string {
  if (!(packet.response instanceof EncodedResponse)) return JSON.stringify(packet);
  return `{"id":${JSON.stringify(packet.id)},"response":${packet.response.json},"isDisposed":${packet.isDisposed === true}}`;
}

/**
 * A reply sent in several messages (a batch reply too large for one): every part but the last says
 * `isDisposed: false`. Nest's own stream ends with a packet of its own, so its replies never do.
 */
export function isReplyPart(packet: NestReplyPacket): boolean {
  return packet.isDisposed === false && (packet.err === undefined || packet.err === null);
}

/** A reply as Nest's ServerNats (or ours) sent it; throws if the body is not JSON. */
export function decodeNestReply(message: Msg): NestReplyPacket {
  return message.json<NestReplyPacket>();
}
