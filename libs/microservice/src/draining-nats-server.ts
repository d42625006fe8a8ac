import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { NatsContext, type NatsOptions, ServerNats } from '@nestjs/microservices';
import { finalize, isObservable } from 'rxjs';
import { JsonTextReply } from './json-text-reply.js';
import { PublishBatch } from './publish-batch.js';

type MessageHandler = (error: unknown, message: unknown) => Promise<unknown>;

/** What Nest hands its serializer for each reply. */
interface ReplyPacket {
  id?: string;
  response?: unknown;
  err?: unknown;
  isDisposed?: boolean;
}

/**
 * Nest's reply packet as JSON, as its own NATS serializer writes it, except that a
 * {@link JsonTextReply} goes out as its body and header.
 */
const replySerializer = {
  serialize(packet: ReplyPacket): { data: string; headers?: ReturnType<JsonTextReply<object>['toMessage']>['headers'] } {
    if (packet.response instanceof JsonTextReply && (packet.err === undefined || packet.err === null)) return packet.response.toMessage();
    return { data: JSON.stringify(packet) };
  },
};

/** What Nest keeps private in ServerNats but a clean stop needs. */
interface ServerNatsInternals {
  natsClient: NatsConnection | null;
  subscriptions: Subscription[];
}

/**
 * Nest's NATS server, stopping cleanly: Nest unsubscribes at shutdown, which drops requests NATS has
 * already delivered to this replica but it has not handled yet (their callers wait for a timeout, and
 * a debit may be lost mid-way). This one drains its subscriptions instead — no new requests, every
 * delivered one handled — waits for the handlers in flight to reply, and only then closes.
 */
export class DrainingNatsServer extends ServerNats {
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Replies finished in one loop turn leave in one socket write. */
  private readonly replies = new PublishBatch();

  constructor(private readonly natsOptions: Required<NatsOptions>['options']) {
    // Nest's own graceful stop (unsubscribe, then a fixed sleep) is replaced by close() below.
    super({ ...natsOptions, gracefulShutdown: false, serializer: replySerializer });
  }

  /**
   * Nest looks a handler up by first trying `JSON.parse` on the pattern, in case it is an object
   * pattern; for a plain subject that throws and builds a SyntaxError with its stack on every message
   * (a few per cent of a service's CPU under load). Our patterns are plain subjects, registered under
   * themselves: look them up directly and leave anything else to Nest.
   */
  override getHandlerByPattern(pattern: string): ReturnType<ServerNats['getHandlerByPattern']> {
    return this.messageHandlers.get(pattern) ?? super.getHandlerByPattern(pattern);
  }

  /**
   * A request whose handler resolves to a plain value is answered at once. Nest would wrap the value in
   * an Observable, pipe it through RxJS operators and publish it on a later tick: a few per cent of a
   * service's CPU per message, for nothing here. Everything else (events, handlers that return an
   * Observable, which is also how Nest's exception filters answer an error) takes Nest's own path.
   */
  override async handleMessage(channel: string, natsMsg: Msg): Promise<void> {
    const handler = this.getHandlerByPattern(channel);
    if (!natsMsg.reply || !handler) return super.handleMessage(channel, natsMsg);
    const context = new NatsContext([natsMsg.subject, natsMsg.headers]);
    const message = (await this.deserializer.deserialize(natsMsg, { channel, replyTo: natsMsg.reply })) as { id?: string; data?: unknown };
    if (message.id === undefined) return this.handleEvent(channel, message as Parameters<ServerNats['handleEvent']>[1], context);
    const publish = this.getPublisher(natsMsg, message.id, context);
    return this.runWithProcessingHooks(context, async (runEndHook: () => void) => {
      const result: unknown = await handler(message.data, context);
      if (isObservable(result)) {
        this.send(result.pipe(finalize(runEndHook)), publish);
        return;
      }
      runEndHook();
      publish({ response: result, isDisposed: true });
    });
  }

  override getMessageHandler(channel: string): MessageHandler {
    const handle = super.getMessageHandler(channel) as MessageHandler;
    return async (error, message) => {
      const work = handle(error, message);
      this.inFlight.add(work);
      try {
        return await work;
      } finally {
        this.inFlight.delete(work);
      }
    };
  }

  /** Nest's publisher, deferred to the end of the loop turn (see {@link PublishBatch}). */
  override getPublisher(natsMsg: Msg, id: string, context: NatsContext): (response: unknown) => void {
    const publish = super.getPublisher(natsMsg, id, context) as (response: unknown) => void;
    return (response) => this.replies.defer(() => publish(response), (error) => this.logger.error(`reply to ${natsMsg.subject} not sent: ${String(error)}`));
  }

  override async close(): Promise<void> {
    const internals = this as unknown as ServerNatsInternals;
    if (internals.natsClient && !internals.natsClient.isClosed()) {
      const deadline = Date.now() + (this.natsOptions.gracePeriod ?? 10_000);
      await Promise.all(internals.subscriptions.map((subscription) => subscription.drain().catch(() => undefined)));
      while (this.inFlight.size > 0 && Date.now() < deadline) {
        await Promise.race([Promise.allSettled([...this.inFlight]), new Promise((resolve) => setTimeout(resolve, 50))]);
      }
      // A handler's reply is published on the next ticks after it resolves (PublishBatch: the same turn's check phase).
      await new Promise((resolve) => setTimeout(resolve, 20));
      await internals.natsClient.flush().catch(() => undefined);
    }
    await super.close();
  }
}
