import { ErrorCode, type WireError } from '@appcat/contracts';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { type Context, tracingEnabled } from '@appcat/ops';
import { Logger } from '@nestjs/common';
import { batchReplyParts, BatchResults } from './batch-reply.js';
import { JsonTextReply } from './json-text-reply.js';
import { EncodedResponse, encodeNestReply, type NestReplyPacket } from './nest-nats-packets.js';
import { NestServerNatsAdapter, type NatsServerOptions, serverNatsState } from './nest-server-nats.js';
import { HandlingTrace } from './nats-trace.js';
import { PublishBatch } from './publish-batch.js';

/** NATS's default `max_payload`, for a connection that has not told us its server's. */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;
/** Room left in each message for the packet around a batch reply's part, its id and headers. */
const PACKET_ROOM = 1024;

/**
 * Nest's reply packet, as its own NATS serializer writes it, except that a {@link JsonTextReply} goes
 * out as its body and header.
 */
const replySerializer = {
  serialize(packet: NestReplyPacket): {
    data: string;
    headers?: ReturnType<JsonTextReply<object>['toMessage']>['headers'];
  } {
    if (packet.response instanceof JsonTextReply && (packet.err === undefined || packet.err === null))
      return packet.response.toMessage();
    return { data: encodeNestReply(packet) };
  },
};

/**
 * Nest's NATS server, stopping cleanly: Nest closes the connection at shutdown, which drops requests
 * NATS has already delivered to this replica but it has not handled yet (their callers wait for a
 * timeout, and a debit may be lost mid-way). This one drains its subscriptions instead — no new
 * requests, every delivered one handled — waits for the handlers in flight to reply, and only then
 * closes. Replies finished in one loop turn leave in one socket write; a batch reply larger than a
 * message is sent in parts. With tracing on, each request (each item of a batch) is a span in its
 * caller's trace (nats-trace.ts). Where it reaches into Nest is NestServerNatsAdapter's business.
 */
export class DrainingNatsServer extends NestServerNatsAdapter {
  private readonly log = new Logger('DrainingNatsServer');
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly replies = new PublishBatch();
  /** The spans of the requests being handled, with tracing on. */
  private readonly traces = new WeakMap<Msg, HandlingTrace>();

  constructor(private readonly natsOptions: NatsServerOptions) {
    super({ ...natsOptions, serializer: replySerializer });
  }

  protected override handlingContext(message: Msg): Context | undefined {
    return this.traces.get(message)?.context;
  }

  protected async runHandler(channel: string, message: Msg, handle: () => Promise<unknown>): Promise<unknown> {
    const trace = tracingEnabled() && message.reply ? HandlingTrace.start(channel, message) : undefined;
    if (trace) this.traces.set(message, trace);
    // The handler finds its trace on its payload (handlingContext): Nest's pipeline awaits before it runs.
    const work = handle();
    this.inFlight.add(work);
    try {
      return await work;
    } finally {
      this.inFlight.delete(work);
      if (trace) {
        trace.end();
        // Not left to the collector: an entry keeps its spans alive past the request (see detachContext).
        this.traces.delete(message);
      }
    }
  }

  /**
   * Deferred to the end of the loop turn (see {@link PublishBatch}). A batch reply goes in as many
   * messages as `max_payload` needs. A reply that cannot be sent (too large) is answered with an error
   * instead, so its caller hears at once rather than at its timeout.
   */
  protected sendReply(message: Msg, packet: NestReplyPacket, publish: (packet: NestReplyPacket) => void): void {
    this.traces.get(message)?.replied(packet);
    const { subject } = message;
    for (const part of this.messagesOf(packet)) {
      this.replies.defer(
        () => publish(part),
        (error) => {
          this.log.error(`reply to ${subject} not sent: ${String(error)}`);
          const err: WireError = {
            code: ErrorCode.ReplyTooLarge,
            message: `${subject} reply larger than NATS max_payload`,
          };
          try {
            publish({ err, isDisposed: true });
          } catch (failure) {
            this.log.error(`error reply to ${subject} not sent either: ${String(failure)}`);
          }
        },
      );
    }
  }

  /** The packets `packet` goes in: itself, or a batch reply's parts (every part but the last `isDisposed: false`). */
  private messagesOf(packet: NestReplyPacket): NestReplyPacket[] {
    if (!(packet.response instanceof BatchResults)) return [packet];
    const maxPayload = serverNatsState(this).connection?.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
    const parts = batchReplyParts(packet.response.results, maxPayload - PACKET_ROOM);
    return parts.map((json, index) => ({
      ...packet,
      response: new EncodedResponse(json),
      isDisposed: index === parts.length - 1,
    }));
  }

  protected async drain(connection: NatsConnection, subscriptions: Subscription[]): Promise<void> {
    const deadline = Date.now() + (this.natsOptions.gracePeriod ?? 10_000);
    await Promise.all(subscriptions.map((subscription) => subscription.drain().catch(() => undefined)));
    while (this.inFlight.size > 0 && Date.now() < deadline) {
      await Promise.race([Promise.allSettled([...this.inFlight]), new Promise((resolve) => setTimeout(resolve, 50))]);
    }
    // A handler's reply is published on the next ticks after it resolves (PublishBatch: the same turn's check phase).
    await new Promise((resolve) => setTimeout(resolve, 20));
    await connection.flush().catch(() => undefined);
  }
}
