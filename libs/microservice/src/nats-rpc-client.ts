import type { NatsConfig } from '@appcat/config';
import { ErrorCode, isWireError, REQUEST_ID_HEADER, type WireError } from '@appcat/contracts';
import { connect, headers as natsHeaders, type NatsConnection, RequestError, TimeoutError } from '@nats-io/transport-node';
import { randomUUID } from 'node:crypto';

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

interface NestReplyPacket {
  id?: string;
  response?: unknown;
  err?: unknown;
  isDisposed?: boolean;
}

/**
 * Request/reply client for NestJS NATS microservices. It speaks Nest's packet format
 * (`{pattern, data, id}` → `{id, response | err, isDisposed}`) over the connection's single muxed
 * reply subscription, instead of Nest's ClientNats, which subscribes a new inbox for every request.
 * Every failure comes out as an {@link RpcCallError} with a typed code.
 */
export class NatsRpcClient {
  /** Observes every request: subject, seconds taken, and 'ok' or the error code (for metrics). */
  onRequest?: (subject: string, seconds: number, outcome: string) => void;

  private constructor(
    readonly connection: NatsConnection,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Services reconnect forever; a command-line tool (`failFast`) gives up after one short attempt,
   * with a {@link RpcCallError} of code SERVICE_UNAVAILABLE.
   */
  static async connect(config: NatsConfig, name: string, options: { failFast?: boolean } = {}): Promise<NatsRpcClient> {
    try {
      // noAsyncTraces: otherwise every request builds two Error objects (stack traces included) up
      // front in case it fails; that was a tenth of the gateway's CPU under load. Failures keep their
      // types and codes, only their stacks point into the NATS client instead of the caller.
      const auth = { user: config.user, pass: config.password, inboxPrefix: config.inboxPrefix, noAsyncTraces: true };
      const connection = await connect(
        options.failFast
          ? { servers: config.servers, name, timeout: 3_000, reconnect: false, ...auth }
          : { servers: config.servers, name, maxReconnectAttempts: -1, reconnectTimeWait: 250, ...auth },
      );
      return new NatsRpcClient(connection, config.requestTimeoutMs);
    } catch (error) {
      if (!options.failFast) throw error;
      throw new RpcCallError(ErrorCode.ServiceUnavailable, `cannot connect to NATS at ${config.servers.join(', ')}`, 'nats');
    }
  }

  /**
   * Sends `data` to `subject` and resolves with the handler's response.
   * @param service names the service in error messages ("payments", "catalog").
   */
  async request<Res>(subject: string, data: unknown, options: { service: string; requestId?: string; timeoutMs?: number }): Promise<Res> {
    const started = performance.now();
    try {
      const response = await this.send<Res>(subject, data, options);
      this.onRequest?.(subject, (performance.now() - started) / 1000, 'ok');
      return response;
    } catch (error) {
      this.onRequest?.(subject, (performance.now() - started) / 1000, error instanceof RpcCallError ? error.code : 'error');
      throw error;
    }
  }

  private async send<Res>(subject: string, data: unknown, options: { service: string; requestId?: string; timeoutMs?: number }): Promise<Res> {
    const id = randomUUID();
    const headers = natsHeaders();
    if (options.requestId) headers.set(REQUEST_ID_HEADER, options.requestId);
    let reply: NestReplyPacket;
    try {
      const message = await this.connection.request(subject, JSON.stringify({ pattern: subject, data, id }), {
        timeout: options.timeoutMs ?? this.timeoutMs,
        headers,
      });
      reply = message.json<NestReplyPacket>();
    } catch (error) {
      throw transportError(error, options.service);
    }
    if (reply.err !== undefined && reply.err !== null) {
      if (isWireError(reply.err)) throw new RpcCallError(reply.err.code, reply.err.message, options.service);
      throw new RpcCallError(ErrorCode.Internal, `${options.service} failed`, options.service);
    }
    return reply.response as Res;
  }

  async close(): Promise<void> {
    if (!this.connection.isClosed()) await this.connection.drain();
  }
}

function transportError(error: unknown, service: string): RpcCallError {
  if (error instanceof RequestError && error.isNoResponders()) {
    return new RpcCallError(ErrorCode.ServiceUnavailable, `${service} service unavailable`, service);
  }
  if (error instanceof TimeoutError || (error instanceof RequestError && error.cause instanceof TimeoutError)) {
    return new RpcCallError(ErrorCode.ServiceTimeout, `${service} service did not answer in time`, service);
  }
  return new RpcCallError(ErrorCode.ServiceUnavailable, `${service} service unreachable`, service);
}

/**
 * A small connection of a service's own for its readiness check, with the service's credentials: it
 * asks the server, not the Nest transport. Waits for the first connection and reconnects forever.
 */
export function connectNatsProbe(config: NatsConfig, name: string): Promise<NatsConnection> {
  const { servers, user, password: pass, inboxPrefix } = config;
  return connect({ servers, user, pass, inboxPrefix, name, maxReconnectAttempts: -1, waitOnFirstConnect: true });
}
