import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { Logger } from '@nestjs/common';
import { JsonTextReply } from './json-text-reply.js';
import { encodeNestReply, type NestReplyPacket } from './nest-nats-packets.js';
import { NestServerNatsAdapter, type NatsServerOptions } from './nest-server-nats.js';
import { PublishBatch } from './publish-batch.js';

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
 * closes. Replies finished in one loop turn leave in one socket write. Where it reaches into Nest is
 * NestServerNatsAdapter's business.
 */
export class DrainingNatsServer extends NestServerNatsAdapter {
  private readonly log = new Logger('DrainingNatsServer');
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly replies = new PublishBatch();

  constructor(private readonly natsOptions: NatsServerOptions) {
    super({ ...natsOptions, serializer: replySerializer });
  }

  protected async runHandler(handle: () => Promise<unknown>): Promise<unknown> {
    const work = handle();
    this.inFlight.add(work);
    try {
      return await work;
    } finally {
      this.inFlight.delete(work);
    }
  }

  /** Deferred to the end of the loop turn (see {@link PublishBatch}). */
  protected sendReply(subject: string, publish: () => void): void {
    this.replies.defer(publish, (error) => this.log.error(`reply to ${subject} not sent: ${String(error)}`));
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
