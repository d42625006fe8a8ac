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

/** The batch header for requests sent with these contexts, or undefined when none is in a sampled trace. */
export function batchItemTraceHeader(items: Array<Context | undefined>): string | undefined {
  if (items.every((item) => item === undefined)) return undefined;
  return JSON.stringify(items.map((item) => (item ? traceHeaders(item) : {})));
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
    /** One per call, in order; none for a call not in a sampled trace. */
    private readonly spans: Array<Span | undefined>,
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
      return span && new HandlingTrace(contextWithSpan(span, parent), [span], false);
    }
    // A batch's items are the logical calls: each gets the span its caller's trace expects, named by the
    // subject it would have gone to alone.
    const itemSubject = subject.replace(/\.batch$/, '');
    const spans: Array<Span | undefined> = [];
    const contexts: Array<Context | undefined> = [];
    items.forEach((carrier, index) => {
      const parent = carrier.traceparent ? contextFromHeaders((name) => carrier[name]) : undefined;
      let span: Span | undefined;
      if (parent) {
        const attributes = natsSpanAttributes(itemSubject);
        attributes['appcat.batch.size'] = items.length;
        attributes['appcat.batch.index'] = index;
        span = startSpan(itemSubject, attributes, { kind: SpanKind.SERVER, parent });
      }
      spans.push(span);
      contexts.push(span && contextWithSpan(span, parent));
    });
    if (spans.every((span) => span === undefined)) return undefined;
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
    if (!this.batch) {
      if (this.spans[0]) endSpan(this.spans[0], failure ?? 'ok');
      return;
    }
    const results = (reply?.response as { results?: unknown } | undefined)?.results;
    this.spans.forEach((span, index) => {
      if (!span) return;
      const result = Array.isArray(results) ? (results[index] as { ok?: boolean; error?: unknown }) : undefined;
      endSpan(span, failure ?? (result?.ok === true ? 'ok' : codeOf(result?.error)));
    });
  }
}

function batchItemCarriers(headers: MsgHdrs): Array<Record<string, string>> | undefined {
  const text = headers.get(BATCH_ITEM_TRACE_HEADER);
  if (!text) return undefined;
  try {
    const items = JSON.parse(text) as unknown;
    return Array.isArray(items)
      ? items.map((item) => (typeof item === 'object' && item !== null ? item : {}))
      : undefined;
  } catch {
    return undefined;
  }
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : 'error';
}
