import { attachContext, type Context, detachContext } from '@appcat/ops';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { NatsContext, type NatsOptions, ServerNats } from '@nestjs/microservices';
import { finalize, isObservable } from 'rxjs';
import type { NestReplyPacket } from './nest-nats-packets.js';

/** ServerNats' options: its documented ones. */
export type NatsServerOptions = Required<NatsOptions>['options'];

type MessageHandler = (error: unknown, message: unknown) => Promise<unknown>;

/** ServerNats' private state: the connection it makes at `listen()` (null before, and after close) and its handler subscriptions. */
interface ServerNatsPrivateState {
  natsClient: NatsConnection | null;
  subscriptions: Subscription[];
}

/** The connection and handler subscriptions of a ServerNats, which Nest keeps private and a clean stop needs. */
export function serverNatsState(server: ServerNats): {
  connection: NatsConnection | null;
  subscriptions: Subscription[];
} {
  const state = server as unknown as ServerNatsPrivateState;
  return { connection: state.natsClient ?? null, subscriptions: state.subscriptions };
}

/**
 * Nest's NATS server with its internals adapted, for the reasons given on each override below. This is
 * the one class that relies on ServerNats beyond its documented options: the methods it overrides, the
 * Server members its handleMessage calls as Nest's own does (`messageHandlers`, `deserializer`,
 * `handleEvent`, `runWithProcessingHooks`, `send`) and ServerNats' private connection and subscriptions.
 * Nest treats all of them as internals and may change them in any release: nest-server-nats.spec.ts
 * checks each against the installed Nest, and that the behaviour the overrides exist for is still Nest's.
 *
 * A subclass says what to do at the four points opened up: around each handler, the trace a handler
 * finds on its payload, with each reply, and before the connection closes.
 */
export abstract class NestServerNatsAdapter extends ServerNats {
  constructor(options: NatsServerOptions) {
    // Nest's own graceful stop (unsubscribe, then sleep for a fixed grace period) is replaced by drain().
    super({ ...options, gracefulShutdown: false });
  }

  /** Runs the handling of one delivered message (`handle`), resolving with it. */
  protected abstract runHandler(channel: string, message: Msg, handle: () => Promise<unknown>): Promise<unknown>;

  /** Sends the reply `packet` to a request (`message`) with `publish`, now or later, in one message or several. */
  protected abstract sendReply(message: Msg, packet: NestReplyPacket, publish: (packet: NestReplyPacket) => void): void;

  /** Called once at close, before Nest closes the connection: stop taking requests and finish the delivered ones. */
  protected abstract drain(connection: NatsConnection, subscriptions: Subscription[]): Promise<void>;

  /** With tracing on, the trace context of a request's handling (its span on this side), attached to its payload. */
  protected abstract handlingContext(message: Msg): Context | undefined;

  /**
   * Nest looks a handler up by first trying `JSON.parse` on the pattern, in case it is an object
   * pattern; for a plain subject that throws and builds a SyntaxError with its stack on every message
   * (a few per cent of a service's CPU under load). Plain subjects are registered under themselves:
   * look them up directly and leave anything else to Nest.
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
    const message = (await this.deserializer.deserialize(natsMsg, { channel, replyTo: natsMsg.reply })) as {
      id?: string;
      data?: unknown;
    };
    if (message.id === undefined)
      return this.handleEvent(channel, message as Parameters<ServerNats['handleEvent']>[1], context);
    const publish = this.getPublisher(natsMsg, message.id, context);
    // Where the handler finds its trace (inRequestTrace): no context reaches it through Nest's awaits.
    const trace = this.handlingContext(natsMsg);
    attachContext(message.data, trace);
    return this.runWithProcessingHooks(context, async (runEndHook: () => void) => {
      let result: unknown;
      try {
        result = await handler(message.data, context);
      } finally {
        if (trace) detachContext(message.data);
      }
      if (isObservable(result)) {
        this.send(result.pipe(finalize(runEndHook)), publish);
        return;
      }
      runEndHook();
      publish({ response: result, isDisposed: true });
    });
  }

  /** Nest's handler of a subscription's messages, run through runHandler (so a clean stop can wait for it). */
  override getMessageHandler(channel: string): MessageHandler {
    const handle = super.getMessageHandler(channel) as MessageHandler;
    return (error, message) => this.runHandler(channel, message as Msg, () => handle(error, message));
  }

  /** Nest's publisher of a request's replies, each sent through sendReply. */
  override getPublisher(natsMsg: Msg, id: string, context: NatsContext): (packet: NestReplyPacket) => void {
    const publish = super.getPublisher(natsMsg, id, context) as (packet: NestReplyPacket) => void;
    return (packet) => this.sendReply(natsMsg, packet, publish);
  }

  /**
   * Nest closes the connection at once (or, with `gracefulShutdown`, unsubscribes and sleeps), which
   * drops requests NATS has already delivered to this replica but no handler has taken yet: their
   * callers wait for a timeout, and a debit may be lost mid-way. drain() runs first.
   */
  override async close(): Promise<void> {
    const { connection, subscriptions } = serverNatsState(this);
    if (connection && !connection.isClosed()) await this.drain(connection, subscriptions);
    await super.close();
  }
}
