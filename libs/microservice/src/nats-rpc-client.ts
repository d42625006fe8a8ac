import type { NatsConfig } from '@appcat/config';
import { ErrorCode, isWireError, REQUEST_ID_HEADER, type WireError } from '@appcat/contracts';
import { type Context, traceHeaders, tracingEnabled } from '@appcat/ops';
import { readJsonTextReply } from './json-text-reply.js';
import { joinBatchReplyParts } from './batch-reply.js';
import { decodeNestReply, encodeNestRequest, isReplyPart, type NestReplyPacket } from './nest-nats-packets.js';
import { PublishBatch } from './publish-batch.js';
import { connect, createInbox, headers as natsHeaders, type Msg, type NatsConnection } from '@nats-io/transport-node';

/** A request over NATS that failed with a typed code: the service's own, or one of the transport's. */
export class RpcCallError extends Error implements WireError {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly service: string,
  ) {
    super(message);
    this.name = 'RpcCallError';
  }
}

/** How one request is sent. */
export interface RpcRequestOptions {
  /** Names the service in error messages ("payments", "catalog"). */
  service: string;
  requestId?: string;
  timeoutMs?: number;
  /** More header fields (a batch's item trace contexts). */
  headers?: Record<string, string>;
  /**
   * The trace context the request carries (its `traceparent`), when in a sampled trace; the active one
   * when not given (a service with an async trace context). The gateway passes it explicitly.
   */
  trace?: Context;
}

interface PendingRequest {
  resolve(response: unknown): void;
  reject(error: RpcCallError): void;
  timer: NodeJS.Timeout;
  service: string;
  /** The parts of a batch reply received so far, when it comes in several messages. */
  parts?: unknown[];
}

/** NATS answers a request nobody is subscribed to with an empty message carrying this status. */
const NO_RESPONDERS_STATUS = 503;

/**
 * Request/reply client for NestJS NATS microservices. It speaks Nest's packet format
 * (`{pattern, data, id}` → `{id, response | err, isDisposed}`; nest-nats-packets.ts). Every reply
 * comes back on one wildcard subscription of this client's own (`<inbox>.<token>`), matched to its
 * request by token: not Nest's ClientNats, which subscribes a new inbox per request, nor the NATS
 * client's own `request()`, which builds an Error with a stack trace for every request that succeeds
 * (it rejects an already-settled promise to clean up), a twentieth of the gateway's CPU under load.
 * Every failure comes out as an {@link RpcCallError} with a typed code.
 */
export class NatsRpcClient {
  /** Observes every request: subject, seconds taken, and 'ok' or the error code (for metrics). */
  onRequest?: (subject: string, seconds: number, outcome: string) => void;

  private readonly pending = new Map<string, PendingRequest>();
  /** Requests made in one loop turn leave in one socket write. */
  private readonly publishes = new PublishBatch();
  private readonly replyPrefix: string;
  private nextToken = 0;

  private constructor(
    readonly connection: NatsConnection,
    private readonly timeoutMs: number,
    inboxPrefix: string | undefined,
  ) {
    // Under the configured inbox prefix, so NATS permissions written for `<prefix>.>` still apply.
    this.replyPrefix = `${createInbox(inboxPrefix)}.`;
    connection.subscribe(`${this.replyPrefix}*`, { callback: (error, message) => this.settle(error, message) });
  }

  /**
   * Services reconnect forever; a command-line tool (`failFast`) gives up after one short attempt,
   * with a {@link RpcCallError} of code SERVICE_UNAVAILABLE.
   */
  static async connect(config: NatsConfig, name: string, options: { failFast?: boolean } = {}): Promise<NatsRpcClient> {
    try {
      const auth = { user: config.user, pass: config.password, inboxPrefix: config.inboxPrefix };
      const connection = await connect(
        options.failFast
          ? { servers: config.servers, name, timeout: 3_000, reconnect: false, ...auth }
          : { servers: config.servers, name, maxReconnectAttempts: -1, reconnectTimeWait: 250, ...auth },
      );
      return new NatsRpcClient(connection, config.requestTimeoutMs, config.inboxPrefix);
    } catch (error) {
      if (!options.failFast) throw error;
      throw new RpcCallError(
        ErrorCode.ServiceUnavailable,
        `cannot connect to NATS at ${config.servers.join(', ')}`,
        'nats',
      );
    }
  }

  /**
   * Sends `data` to `subject` and resolves with the handler's response. With tracing on, the message
   * carries the trace context it is given, or the active one (W3C `traceparent`).
   */
  async request<Res>(subject: string, data: unknown, options: RpcRequestOptions): Promise<Res> {
    const started = performance.now();
    try {
      const response = await this.send<Res>(subject, data, options);
      this.onRequest?.(subject, (performance.now() - started) / 1000, 'ok');
      return response;
    } catch (error) {
      this.onRequest?.(
        subject,
        (performance.now() - started) / 1000,
        error instanceof RpcCallError ? error.code : 'error',
      );
      throw error;
    }
  }

  /**
   * Runs `hook` once at the end of this loop turn, just before the turn's requests leave in one write:
   * a request it makes leaves in that same write (the gateway's coalescing sends its batches there).
   */
  beforePublishing(hook: () => void): void {
    this.publishes.beforeFlush(hook);
  }

  private send<Res>(subject: string, data: unknown, options: RpcRequestOptions): Promise<Res> {
    const token = (this.nextToken++).toString(36);
    const headers = natsHeaders();
    if (options.requestId) headers.set(REQUEST_ID_HEADER, options.requestId);
    if (options.headers) for (const [name, value] of Object.entries(options.headers)) headers.set(name, value);
    if (tracingEnabled())
      for (const [name, value] of Object.entries(traceHeaders(options.trace))) headers.set(name, value);
    const payload = encodeNestRequest(subject, data, token);
    return new Promise<Res>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(token);
        reject(
          new RpcCallError(
            ErrorCode.ServiceTimeout,
            `${options.service} service did not answer in time`,
            options.service,
          ),
        );
      }, options.timeoutMs ?? this.timeoutMs);
      this.pending.set(token, {
        resolve: resolve as (response: unknown) => void,
        reject,
        timer,
        service: options.service,
      });
      this.publishes.defer(
        () => this.connection.publish(subject, payload, { reply: this.replyPrefix + token, headers }),
        () =>
          this.forget(token)?.reject(
            new RpcCallError(ErrorCode.ServiceUnavailable, `${options.service} service unreachable`, options.service),
          ),
      );
    });
  }

  /**
   * One reply from the shared subscription, handed to the request that waits for it (if it still does).
   * A batch reply may come in parts (libs/contracts batch.ts): they are kept until the last one.
   */
  private settle(error: Error | null, message: Msg): void {
    if (error) return;
    const token = message.subject.slice(this.replyPrefix.length);
    const request = this.pending.get(token);
    if (!request) return;
    const { service } = request;
    const reply = readReply(message, service);
    if (reply.kind === 'part') {
      (request.parts ??= []).push(reply.response);
      return;
    }
    this.forget(token);
    if (reply.kind === 'error') return request.reject(reply.error);
    if (!request.parts) return request.resolve(reply.response);
    try {
      request.resolve(joinBatchReplyParts([...request.parts, reply.response]));
    } catch {
      request.reject(
        new RpcCallError(ErrorCode.Internal, `${service} sent reply parts that do not fit together`, service),
      );
    }
  }

  private forget(token: string): PendingRequest | undefined {
    const request = this.pending.get(token);
    if (!request) return undefined;
    clearTimeout(request.timer);
    this.pending.delete(token);
    return request;
  }

  async close(): Promise<void> {
    this.publishes.flush();
    if (!this.connection.isClosed()) await this.connection.drain();
    // Draining delivered every reply that had arrived; whatever is still waiting will get none.
    for (const [token, request] of this.pending) {
      this.forget(token);
      request.reject(
        new RpcCallError(
          ErrorCode.ServiceUnavailable,
          `${request.service} service unreachable: the client closed`,
          request.service,
        ),
      );
    }
  }
}

type ReadReply =
  | { kind: 'response'; response: unknown }
  | { kind: 'part'; response: unknown }
  | { kind: 'error'; error: RpcCallError };

/** What one reply message says: the response, a part of one, or the request's typed failure. */
function readReply(message: Msg, service: string): ReadReply {
  if (message.data.length === 0 && message.headers?.code === NO_RESPONDERS_STATUS)
    return {
      kind: 'error',
      error: new RpcCallError(ErrorCode.ServiceUnavailable, `${service} service unavailable`, service),
    };
  let reply: NestReplyPacket;
  try {
    const textReply = readJsonTextReply(message);
    if (textReply !== undefined) return { kind: 'response', response: textReply };
    reply = decodeNestReply(message);
  } catch {
    return {
      kind: 'error',
      error: new RpcCallError(ErrorCode.Internal, `${service} sent a reply that is not JSON`, service),
    };
  }
  if (reply.err !== undefined && reply.err !== null) {
    const error = isWireError(reply.err)
      ? new RpcCallError(reply.err.code, reply.err.message, service)
      : new RpcCallError(ErrorCode.Internal, `${service} failed`, service);
    return { kind: 'error', error };
  }
  return { kind: isReplyPart(reply) ? 'part' : 'response', response: reply.response };
}
