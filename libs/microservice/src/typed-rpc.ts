import type { GatewayRpcShapes, GatewaySubject } from '@appcat/contracts';
import { type NatsRpcClient, RpcCallError } from './nats-rpc-client.js';

/** A request's outcome as a value: the reply, or the typed error it failed with. */
export type RpcResult<T> = { ok: true; value: T } | { ok: false; error: RpcCallError };

export interface TypedRpcOptions {
  requestId?: string;
  /** Overrides the client's request timeout (an x402 settlement waits for the chain). */
  timeoutMs?: number;
}

type RequestOf<S extends GatewaySubject> = GatewayRpcShapes[S]['request'];
type ReplyOf<S extends GatewaySubject> = GatewayRpcShapes[S]['reply'];

/**
 * The gateway's requests to its services, typed by subject (`GatewayRpcShapes` in libs/contracts).
 * `result` gives the outcome as a value, for a caller that decides by the error's code; `request`
 * gives the reply or throws the caller's own error, made from the typed one by `toError` (the
 * gateway passes its one code-to-HTTP mapping), so no client translates RPC errors itself.
 */
export class TypedRpc<E extends Error> {
  constructor(
    private readonly client: NatsRpcClient,
    private readonly toError: (error: RpcCallError) => E,
  ) {}

  /** The one place a request leaves (anything that batches or coalesces requests belongs here). */
  async result<S extends GatewaySubject>(subject: S, payload: RequestOf<S>, options: TypedRpcOptions = {}): Promise<RpcResult<ReplyOf<S>>> {
    try {
      const value = await this.client.request<ReplyOf<S>>(subject, payload, { service: serviceOf(subject), ...options });
      return { ok: true, value };
    } catch (error) {
      // NatsRpcClient fails only with RpcCallError; anything else is a bug and stays an exception.
      if (error instanceof RpcCallError) return { ok: false, error };
      throw error;
    }
  }

  async request<S extends GatewaySubject>(subject: S, payload: RequestOf<S>, options: TypedRpcOptions = {}): Promise<ReplyOf<S>> {
    const outcome = await this.result(subject, payload, options);
    if (!outcome.ok) throw this.toError(outcome.error);
    return outcome.value;
  }
}

/** Subjects are `<service>.<...>` ("payments.credits.debit"); the service names it in error messages. */
function serviceOf(subject: string): string {
  return subject.slice(0, subject.indexOf('.'));
}
