import { BATCH_ITEM_TRACE_HEADER, REQUEST_ID_HEADER } from '@appcat/contracts';
import {
  attachedContext,
  contextFromHeaders,
  contextWithSpan,
  endSpan,
  inContext,
  type SpanAttributes,
  SpanKind,
  startSpan,
  traceHeaders,
  tracingEnabled,
} from '@appcat/ops';
import { type Context, createContextKey, ROOT_CONTEXT, type Span } from '@opentelemetry/api';
import type { Msg, MsgHdrs } from '@nats-io/transport-node';
import type { NestReplyPacket } from './nest-nats-packets.js';

/**
 * W3C trace context over NATS, which has no OpenTelemetry instrumentation of its own: the caller's
 * span per request travels in the message headers (`traceparent`), and a coalesced batch carries one
 * context per item ({@link BATCH_ITEM_TRACE_HEADER}), so every logical call has its span on both
 * sides, in its own trace, whether it went alone or in a batch. Used only with tracing on.
 */

/**
 * What a span of a request on `subject` says: the messaging system and the subject, never the payload.
 * A new object, which a caller adds its own attributes to (no spread: this runs for every sampled item
 * of a batch).
 */
export function natsSpanAttributes(subject: string): SpanAttributes {
  return { 'messaging.system': 'nats', 'messaging.destination.name': subject };
}

/**
 * The caller's span of one request, a child of `parent` (the active context when not given); `end` it
 * with the outcome. Undefined outside a sampled trace.
 */
export function startRequestSpan(subject: string, parent?: Context): { span: Span; context: Context } | undefined {
  const span = startSpan(subject, natsSpanAttributes(subject), { kind: SpanKind.CLIENT, parent });
  return span && { span, context: contextWithSpan(span, parent) };
}

/**
 * The batch header ({@link BATCH_ITEM_TRACE_HEADER}) for requests sent with these contexts (each item's
 * `trace`, read off the queued requests themselves): the batch's size and the carrier of each item in a
 * sampled trace, by index; undefined when none is. Written as text, and naming only the traced items:
 * at 10 % sampling most batches hold one or two of a dozen.
 */
export function batchItemTraceHeader(items: ReadonlyArray<{ trace?: Context }>): string | undefined {
  let traced = '';
  for (let index = 0; index < items.length; index++) {
    const item = items[index].trace;
    if (item === undefined) continue;
    const carrier = traceHeaders(item);
    if (carrier.traceparent === undefined) continue;
    traced += `${traced === '' ? '' : ','}"${index}":${JSON.stringify(carrier)}`;
  }
  return traced === '' ? undefined : `{"size":${items.length},"traced":{${traced}}}`;
}

/** Each batch item's context, under this key of the context its batch handler runs in. */
const BATCH_ITEM_CONTEXTS = createContextKey('appcat batch item contexts');

/**
 * Runs `work` in the trace of the request whose payload is `payload` (its span on this side, attached
 * to the payload by the NATS server as it delivers it), so what `work` does before its first await (a
 * span, a Redis command) belongs to the caller's trace. Handlers call it with the payload they were
 * given: Nest's pipeline awaits between the NATS server and the handler, and no context crosses an
 * await (libs/ops tracing.ts). Outside a traced request it only runs `work`.
 */
export function inRequestTrace<T>(payload: unknown, work: () => T): T {
  return tracingEnabled() ? inContext(attachedContext(payload), work) : work();
}

/**
 * Runs `work` in the trace of the item at `index` of the batch request `batch` (its span on this side
 * as the parent), so what a batch handler does for that item alone (a cache read) belongs to the
 * caller's trace. Outside a traced batch it only runs `work`.
 */
export function inBatchItemContext<T>(batch: unknown, index: number, work: () => T): T {
  const items = attachedContext(batch)?.getValue(BATCH_ITEM_CONTEXTS) as Array<Context | undefined> | undefined;
  return inContext(items?.[index], work);
}

/**
 * The spans of one delivered request, on the service's side: one per logical call (the request, or
 * each item of a batch) that carries a sampled trace context, each a child of its caller's span, ended
 * with its outcome once the reply is known. Its handler finds {@link HandlingTrace.context} on its
 * payload (inRequestTrace, inBatchItemContext). A request that carries none (a call not sampled, an
 * admin command) is not traced: it starts no trace of its own, and its handler finds no context.
 */
export class HandlingTrace {
  private reply?: NestReplyPacket;

  private constructor(
    readonly context: Context,
    /** One per call in a sampled trace (a lone request's at index 0). */
    private readonly spans: readonly TracedCall[],
    private readonly batch: boolean,
  ) {}

  /** The trace of `message`, or undefined when it carries no sampled trace context. */
  static start(subject: string, message: Msg): HandlingTrace | undefined {
    const headers = message.headers;
    if (headers === undefined) return undefined;
    const items = batchItemCarriers(headers);
    if (items === undefined) {
      if (!headers.has('traceparent')) return undefined;
      const requestId = headers.get(REQUEST_ID_HEADER);
      const parent = contextFromHeaders((name) => headers.get(name) || undefined);
      const attributes = natsSpanAttributes(subject);
      if (requestId) attributes['appcat.request_id'] = requestId;
      const span = startSpan(subject, attributes, { kind: SpanKind.SERVER, parent });
      return span && new HandlingTrace(contextWithSpan(span, parent), [{ span, index: 0 }], false);
    }
    // A batch's items are the logical calls: each traced one gets the span its caller's trace expects,
    // named by the subject it would have gone to alone.
    const itemSubject = subject.replace(/\.batch$/, '');
    const spans: TracedCall[] = [];
    const contexts: Array<Context | undefined> = [];
    for (const [index, carrier] of items.traced) {
      const parent = contextFromHeaders((name) => carrier[name]);
      const attributes = natsSpanAttributes(itemSubject);
      attributes['appcat.batch.size'] = items.size;
      attributes['appcat.batch.index'] = index;
      const span = startSpan(itemSubject, attributes, { kind: SpanKind.SERVER, parent });
      if (span === undefined) continue;
      spans.push({ span, index });
      contexts[index] = contextWithSpan(span, parent);
    }
    if (spans.length === 0) return undefined;
    return new HandlingTrace(ROOT_CONTEXT.setValue(BATCH_ITEM_CONTEXTS, contexts), spans, true);
  }

  /** The reply about to be sent: it holds each call's outcome. */
  replied(packet: NestReplyPacket): void {
    this.reply = packet;
  }

  /** Ends every span: with the reply's outcome, or `error` when the handler failed before replying. */
  end(): void {
    const reply = this.reply;
    const failure = reply === undefined ? 'error' : reply.err ? codeOf(reply.err) : undefined;
    const results = this.batch ? (reply?.response as { results?: unknown } | undefined)?.results : undefined;
    for (const { span, index } of this.spans)
      endSpan(span, failure ?? (this.batch ? itemOutcome(results, index) : 'ok'));
  }
}

/** A batch item's outcome, read off the batch reply's results. */
function itemOutcome(results: unknown, index: number): string {
  const result = Array.isArray(results) ? (results[index] as { ok?: boolean; error?: unknown }) : undefined;
  return result?.ok === true ? 'ok' : codeOf(result?.error);
}

/** A call's span on this side, and where the call is in its batch. */
interface TracedCall {
  span: Span;
  index: number;
}

/** What a batch header says: the batch's size, and each traced item's carrier by index. */
export interface BatchItemCarriers {
  size: number;
  traced: Array<[index: number, carrier: Record<string, string>]>;
}

/** The batch header's traced items; undefined without one, or with one that is not such a header. */
export function batchItemCarriers(headers: Pick<MsgHdrs, 'get'>): BatchItemCarriers | undefined {
  const text = headers.get(BATCH_ITEM_TRACE_HEADER);
  if (!text) return undefined;
  let header: { size?: unknown; traced?: unknown } | null;
  try {
    header = JSON.parse(text) as typeof header;
  } catch {
    return undefined;
  }
  const size = header?.size;
  const traced = header?.traced;
  if (typeof size !== 'number' || typeof traced !== 'object' || traced === null) return undefined;
  const carriers: BatchItemCarriers['traced'] = [];
  for (const [key, carrier] of Object.entries(traced as Record<string, unknown>)) {
    const index = Number(key);
    if (!Number.isInteger(index) || index < 0 || index >= size) continue;
    if (typeof (carrier as { traceparent?: unknown } | null)?.traceparent === 'string')
      carriers.push([index, carrier as Record<string, string>]);
  }
  return { size, traced: carriers };
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : 'error';
}
