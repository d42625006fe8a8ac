import {
  BATCH_ITEM_TRACE_HEADER,
  type BatchableSubject,
  type BatchItemResult,
  BatchSubject,
  ErrorCode,
  type GatewayRpcShapes,
  type GatewaySubject,
  isWireError,
} from '@appcat/contracts';
import { type Context, endSpan, tracingEnabled } from '@appcat/ops';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { type NatsRpcClient, RpcCallError } from './nats-rpc-client.js';
import { batchItemTraceHeader, startRequestSpan } from './nats-trace.js';
import { RequestCoalescer } from './request-coalescer.js';

/** A request's outcome as a value: the reply, or the typed error it failed with. */
export type RpcResult<T> = { ok: true; value: T } | { ok: false; error: RpcCallError };

export interface TypedRpcOptions {
  requestId?: string;
  /** Overrides the client's request timeout (an x402 settlement waits for the chain). */
  timeoutMs?: number;
  /**
   * The parent of the request's span: the caller's span (the gateway passes it explicitly); the active
   * context when not given.
   */
  trace?: Context;
}

export interface TypedRpcSettings {
  /**
   * Most requests of one subject sent together as one batch request (see `BatchSubject` in
   * libs/contracts); 1 sends every request alone.
   */
  batchMaxItems: number;
}

interface QueuedRequest {
  payload: unknown;
  requestId?: string;
  /** The context the request carries: its own span's in a sampled trace (a batch carries each item's), else none. */
  trace?: Context;
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
  private readonly coalescers = new Map<GatewaySubject, RequestCoalescer<QueuedRequest, RpcResult<unknown>>>();

  constructor(
    private readonly client: NatsRpcClient,
    private readonly toError: (error: RpcCallError) => E,
    settings: TypedRpcSettings = { batchMaxItems: 1 },
  ) {
    if (settings.batchMaxItems > 1) {
      for (const subject of Object.keys(BatchSubject) as BatchableSubject[]) {
        const schedule = (flush: () => void) => client.beforePublishing(flush);
        this.coalescers.set(
          subject,
          new RequestCoalescer(settings.batchMaxItems, schedule, (queued) => this.sendQueued(subject, queued)),
        );
      }
    }
  }

  /**
   * The one place a request leaves. Requests of a batchable subject made in one loop turn leave together
   * as one batch request (a lone one as itself, in the same turn); each still gets its own result. With
   * tracing on, each request is a span of its own, whose context it carries alone or in its batch.
   */
  result<S extends GatewaySubject>(
    subject: S,
    payload: RequestOf<S>,
    options: TypedRpcOptions = {},
  ): Promise<RpcResult<ReplyOf<S>>> {
    // Outside a sampled trace (tracing off, or a call not sampled) no span, and no context to carry.
    const request = tracingEnabled() ? startRequestSpan(subject, options.trace) : undefined;
    if (request === undefined) return this.send(subject, payload, options, undefined);
    return this.send(subject, payload, options, request.context).then(
      (outcome) => {
        endSpan(request.span, outcome.ok ? 'ok' : outcome.error.code);
        return outcome;
      },
      (error: unknown) => {
        endSpan(request.span, 'error');
        throw error;
      },
    );
  }

  /**
   * `trace`: the context the request carries (its own span's), not its parent; none outside a sampled
   * trace, whatever context is active when it leaves.
   */
  private send<S extends GatewaySubject>(
    subject: S,
    payload: RequestOf<S>,
    options: TypedRpcOptions,
    trace: Context | undefined,
  ): Promise<RpcResult<ReplyOf<S>>> {
    const coalescer = options.timeoutMs === undefined ? this.coalescers.get(subject) : undefined;
    if (coalescer)
      return coalescer.add({ payload, requestId: options.requestId, trace }) as Promise<RpcResult<ReplyOf<S>>>;
    return this.resultAlone(subject, payload, { ...options, trace: trace ?? ROOT_CONTEXT });
  }

  /** `options.trace`: the context the request carries. */
  private async resultAlone<S extends GatewaySubject>(
    subject: S,
    payload: unknown,
    options: TypedRpcOptions & { headers?: Record<string, string> },
  ): Promise<RpcResult<ReplyOf<S>>> {
    try {
      const value = await this.client.request<ReplyOf<S>>(subject, payload, {
        service: serviceOf(subject),
        ...options,
      });
      return { ok: true, value };
    } catch (error) {
      // NatsRpcClient fails only with RpcCallError; anything else is a bug and stays an exception.
      if (error instanceof RpcCallError) return { ok: false, error };
      throw error;
    }
  }

  /**
   * A lone request goes as itself; several as one request to the batch subject, answered item by item.
   * The queue is sent from the end-of-turn flush, in whichever caller's context scheduled it: each
   * request carries its own context, given explicitly (a batch none, its items' in a header of their own).
   */
  private async sendQueued(subject: BatchableSubject, queued: QueuedRequest[]): Promise<RpcResult<unknown>[]> {
    if (queued.length === 1) {
      const [{ payload, requestId, trace }] = queued;
      return [await this.resultAlone(subject, payload, { requestId, trace: trace ?? ROOT_CONTEXT })];
    }
    const service = serviceOf(subject);
    const items = queued.map((request) => request.payload);
    const traces = tracingEnabled() ? batchItemTraceHeader(queued) : undefined;
    const batch = await this.resultAlone(BatchSubject[subject], { items } as never, {
      trace: ROOT_CONTEXT,
      ...(traces ? { headers: { [BATCH_ITEM_TRACE_HEADER]: traces } } : {}),
    });
    if (!batch.ok) return queued.map(() => batch);
    const results = (batch.value as { results?: unknown } | null)?.results;
    if (!Array.isArray(results) || results.length !== queued.length) {
      const error = new RpcCallError(
        ErrorCode.Internal,
        `${service} sent a batch reply that does not match the batch`,
        service,
      );
      return queued.map(() => ({ ok: false as const, error }));
    }
    return (results as BatchItemResult<unknown>[]).map((item): RpcResult<unknown> => {
      if (item?.ok === true) return { ok: true, value: item.value };
      const wire =
        item?.ok === false && isWireError(item.error)
          ? item.error
          : { code: ErrorCode.Internal, message: `${service} failed` };
      return { ok: false, error: new RpcCallError(wire.code, wire.message, service) };
    });
  }

  async request<S extends GatewaySubject>(
    subject: S,
    payload: RequestOf<S>,
    options: TypedRpcOptions = {},
  ): Promise<ReplyOf<S>> {
    const outcome = await this.result(subject, payload, options);
    if (!outcome.ok) throw this.toError(outcome.error);
    return outcome.value;
  }
}

/** Subjects are `<service>.<...>` ("payments.credits.debit"); the service names it in error messages. */
function serviceOf(subject: string): string {
  return subject.slice(0, subject.indexOf('.'));
}
