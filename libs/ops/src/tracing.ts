import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  isSpanContextValid,
  type Link,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Tracer,
} from '@opentelemetry/api';

export { type Context, type Span, SpanKind, SpanStatusCode };

/**
 * The tracer spans are made with, once tracing is on (`runService` starts the SDK when an OTLP endpoint
 * is set; a test sets its own). Undefined means off: every helper here then does nothing but call
 * through, so a service that does not trace pays one comparison per span it would have made.
 */
let tracer: Tracer | undefined;
let flush: (() => Promise<void>) | undefined;
let maker: SpanMaker | undefined;

/**
 * Makes the spans of our code (the services' records them itself: recorded-span.ts): one under
 * `parent` (the span of `parentContext`, if any), or undefined when the sampler does not keep it.
 * Without one, `tracer` makes them, and the sampler's verdict is read off the span.
 */
export interface SpanMaker {
  start(name: string, options: SpanStartOptions, parentContext: Context, parent?: Span): Span | undefined;
}

/** What `startSpan` hands a span maker (or the tracer) a span to start with. */
export interface SpanStartOptions {
  attributes: SpanAttributes;
  kind: SpanKind;
  links?: Link[];
}

/**
 * Turns tracing on with `next` (off with undefined); `flushSpans` sends the spans still buffered;
 * `spans` makes our spans (tracing-sdk.ts gives the services' recorder).
 */
export function useTracer(next: Tracer | undefined, flushSpans?: () => Promise<void>, spans?: SpanMaker): void {
  tracer = next;
  flush = flushSpans;
  maker = next === undefined ? undefined : spans;
}

/** Sends the spans still buffered (at shutdown, before the process ends); nothing with tracing off. */
export async function flushTraces(): Promise<void> {
  await flush?.().catch(() => undefined);
}

export function tracingEnabled(): boolean {
  return tracer !== undefined;
}

/** Attributes name the route, the rail, the network and the outcome: never a key, key hash or payment payload. */
export type SpanAttributes = Attributes;

/** The outcome of the work a span covers: `ok`, a typed error code, or a short reason. */
export const OUTCOME = 'appcat.outcome';

/** What a span's work may add to its span while it runs, and the context to parent its own spans on. */
export interface SpanHandle {
  set(attributes: SpanAttributes): void;
  /**
   * The span's context, undefined when no span was made or it is a `leaf`: the `parent` of the spans and
   * requests the work starts after its first `await` (see {@link SpanOptions.parent}).
   */
  readonly context?: Context;
}

const NO_SPAN: SpanHandle = { set: () => undefined };

/*
 * How spans find their parent. The active context is held only while synchronous code runs
 * (OpenTelemetry's StackContextManager, registered by tracing-sdk.ts): `withSpan`'s work, up to its
 * first `await`, and `inContext`'s. A span made, or a library call an instrumentation traces (Redis,
 * pg, HTTP clients read the active context when the call is made), later than that is given its
 * parent: `SpanOptions.parent`, or the call wrapped in `inContext(span.context, ...)`. Nothing carries
 * the context across an `await` by itself: on Node 20 an AsyncLocalStorage that did, once a context
 * was entered, ran an async hook for every promise the process made, sampled call or not, and cost the
 * credit path about a tenth of its throughput at 10 % sampling.
 */

export interface SpanOptions {
  kind?: SpanKind;
  /** The span's parent; the active context by default (see above: only until the first `await`). */
  parent?: Context;
  links?: Link[];
  /**
   * Whether the span may start a trace of its own when it has no parent (the sampler then decides):
   * only where a call enters (the gateway's request span) and for background work (a ledger flush).
   * Any other span is made only inside a sampled trace.
   */
  root?: boolean;
  /**
   * Work that starts no span and makes no traced call (a validation, writing an answer): `withSpan`
   * then makes no context for its span and enters none, which is most of what a short span costs
   * besides itself.
   */
  leaf?: boolean;
}

/**
 * Runs `work` inside a span named `name`, ended when `work` returns or settles. A failure marks the
 * span as an error, with the error's code (our typed errors carry one) as its outcome, unless `work`
 * named the outcome itself first (a cache miss thrown as an error is the outcome `miss`); a result
 * value that is a failure sets its outcome through `span.set`, and one `work` does not name is `ok`.
 * With tracing off, only calls `work`.
 */
export function withSpan<T>(
  name: string,
  attributes: SpanAttributes,
  work: (span: SpanHandle) => T,
  options: SpanOptions = {},
): T {
  const span = startSpan(name, attributes, options);
  if (span === undefined) return work(NO_SPAN);
  const handle = new SpanAtWork(
    span,
    options.leaf ? undefined : contextWithSpan(span, options.parent ?? context.active()),
  );
  let result: T;
  try {
    result = handle.context === undefined ? work(handle) : context.with(handle.context, work, undefined, handle);
  } catch (error) {
    handle.failed(error);
    throw error;
  }
  if (isPromiseLike(result)) {
    return result.then(
      (value) => {
        handle.succeeded();
        return value;
      },
      (error: unknown) => {
        handle.failed(error);
        throw error;
      },
    ) as T;
  }
  handle.succeeded();
  return result;
}

/** The handle `withSpan` gives its work, which ends the span with the work's outcome. */
class SpanAtWork implements SpanHandle {
  /** Whether the work named its outcome itself. */
  private named = false;

  constructor(
    private readonly span: Span,
    readonly context: Context | undefined,
  ) {}

  set(attributes: SpanAttributes): void {
    if (OUTCOME in attributes) this.named = true;
    this.span.setAttributes(attributes);
  }

  succeeded(): void {
    if (!this.named) this.span.setAttribute(OUTCOME, 'ok');
    this.span.end();
  }

  failed(error: unknown): void {
    if (this.named) this.span.end();
    else endFailed(this.span, error);
  }
}

/**
 * A span started now and ended by the caller, for work whose end is seen elsewhere (a reply sent by
 * another callback). Undefined with tracing off, and for work outside a sampled trace: a call that is
 * not sampled makes no span and enters no context at all, so what it costs is this function's two
 * checks.
 */
export function startSpan(name: string, attributes: SpanAttributes, options: SpanOptions = {}): Span | undefined {
  if (tracer === undefined) return undefined;
  const parent = options.parent ?? context.active();
  const parentSpan = trace.getSpan(parent);
  if (parentSpan === undefined ? options.root !== true : !sampled(parentSpan)) return undefined;
  const spanOptions: SpanStartOptions = { attributes, kind: options.kind ?? SpanKind.INTERNAL, links: options.links };
  if (maker !== undefined) return maker.start(name, spanOptions, parent, parentSpan);
  const span = tracer.startSpan(name, spanOptions, parent);
  // A root the sampler did not keep records nothing: dropped, so the call goes on untraced.
  return span.isRecording() ? span : undefined;
}

function sampled(span: Span): boolean {
  return (span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0;
}

/** Ends `span` with `outcome` ('ok' or an error code; anything but 'ok' marks it as an error). */
export function endSpan(span: Span, outcome: string): void {
  span.setAttribute(OUTCOME, outcome);
  if (outcome !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
  span.end();
}

function endFailed(span: Span, error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  span.setAttribute(OUTCOME, typeof code === 'string' ? code : 'error');
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.name : 'error',
  });
  span.end();
}

function isPromiseLike<T>(value: T): value is T & PromiseLike<Awaited<T>> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** The context with `span` active, to run work in later (a batch item handled apart from its message). */
export function contextWithSpan(span: Span, parent: Context = context.active()): Context {
  return new ContextFrame(parent, SPAN_KEY, span);
}

/** The key `trace.setSpan` and `trace.getSpan` keep a context's span under (the API makes it with Symbol.for). */
const SPAN_KEY = createContextKey('OpenTelemetry Context Key SPAN');

/**
 * A context that is its parent with one value added (or, `undefined`, removed): what `trace.setSpan`
 * makes, and what a frame's `setValue` makes in turn (an instrumentation's `trace.setSpan` on a span of
 * ours). The API's BaseContext copies every value of its parent into a new Map and makes three closures
 * for each context; a sampled call makes several, all short-lived.
 */
class ContextFrame implements Context {
  constructor(
    private readonly parent: Context,
    private readonly key: symbol,
    private readonly value: unknown,
  ) {}

  getValue(key: symbol): unknown {
    return key === this.key ? this.value : this.parent.getValue(key);
  }

  setValue(key: symbol, value: unknown): Context {
    return new ContextFrame(this, key, value);
  }

  deleteValue(key: symbol): Context {
    return new ContextFrame(this, key, undefined);
  }
}

/** The active context when it holds a sampled span (what a call made now belongs to), else undefined. */
export function sampledContext(): Context | undefined {
  const ctx = context.active();
  const span = trace.getSpan(ctx);
  return span !== undefined && sampled(span) ? ctx : undefined;
}

/** The active context: the one a callback that runs later must be given back (`inContext`). */
export function activeContext(): Context {
  return context.active();
}

/** The contexts attached to objects (`attachContext`). */
const attached = new WeakMap<object, Context>();

/**
 * Attaches `ctx` to `carrier`, an object that travels where no context is passed (a request's payload
 * through Nest's pipeline, a payment through the x402 library's awaits), for `attachedContext` to read
 * at the other end. Nothing with tracing off or no `ctx`.
 */
export function attachContext(carrier: unknown, ctx: Context | undefined): void {
  if (ctx !== undefined && typeof carrier === 'object' && carrier !== null) attached.set(carrier, ctx);
}

/**
 * Forgets `carrier`'s context once its work is done. An entry left for the collector keeps the context
 * and its spans alive well past that: measured in payments with every call sampled, scavenges copied
 * about 200 KB more each.
 */
export function detachContext(carrier: unknown): void {
  if (typeof carrier === 'object' && carrier !== null) attached.delete(carrier);
}

/** The context attached to `carrier`, if any. */
export function attachedContext(carrier: unknown): Context | undefined {
  return typeof carrier === 'object' && carrier !== null ? attached.get(carrier) : undefined;
}

/** Runs `work` with `ctx` active (with tracing off, no `ctx`, or `ctx` active already, just runs it). */
export function inContext<T>(ctx: Context | undefined, work: () => T): T {
  return tracer === undefined || ctx === undefined || ctx === context.active() ? work() : context.with(ctx, work);
}

/**
 * The W3C trace context of `ctx` (the active one by default) as header fields: empty with tracing off
 * and outside a sampled trace (the services a call reaches trace it only when it carries one).
 */
export function traceHeaders(ctx?: Context): Record<string, string> {
  const carrier: Record<string, string> = {};
  if (tracer === undefined) return carrier;
  const from = ctx ?? context.active();
  const span = trace.getSpan(from);
  if (span === undefined || !sampled(span)) return carrier;
  // With baggage, or tracing suppressed, the registered propagators (W3C trace context and baggage)
  // write the headers. Without, all they write is the trace context, written here as its propagator
  // writes it, without going through the API's and the composite propagator's layers for each request.
  if (from.getValue(BAGGAGE_KEY) !== undefined || from.getValue(SUPPRESS_TRACING_KEY) === true) {
    propagation.inject(from, carrier);
    return carrier;
  }
  const spanContext = span.spanContext();
  if (!isSpanContextValid(spanContext)) return carrier;
  carrier.traceparent = `00-${spanContext.traceId}-${spanContext.spanId}-0${spanContext.traceFlags.toString(16)}`;
  if (spanContext.traceState) carrier.tracestate = spanContext.traceState.serialize();
  return carrier;
}

/** Where the API keeps a context's baggage, and OpenTelemetry's core its suppression of tracing (both made with Symbol.for). */
const BAGGAGE_KEY = createContextKey('OpenTelemetry Baggage Key');
const SUPPRESS_TRACING_KEY = createContextKey('OpenTelemetry SDK Context Key SUPPRESS_TRACING');

/**
 * The context carried by header fields read with `get` (W3C `traceparent`, `tracestate`, `baggage`):
 * the active one when there are none, as the W3C propagators (the SDK's, registered with it) would
 * return it, without their work on every request that comes without them.
 */
export function contextFromHeaders(get: (name: string) => string | undefined): Context {
  if (get('traceparent') === undefined && get('baggage') === undefined) return context.active();
  return propagation.extract(context.active(), undefined, {
    keys: () => ['traceparent', 'tracestate', 'baggage'],
    get: (_carrier, key) => get(key),
  });
}

/** The ids log lines carry to meet their trace: those of the active span, when it is sampled (exported). */
export function activeTraceIds(): TraceIds | undefined {
  return tracer === undefined ? undefined : traceIds(context.active());
}

export interface TraceIds {
  trace_id: string;
  span_id: string;
}

/**
 * The ids of `ctx`'s span, when it is sampled: for a log line written with a context passed explicitly
 * (past an await, where `activeTraceIds` finds none).
 */
export function traceIds(ctx: Context | undefined): TraceIds | undefined {
  const spanContext = ctx && trace.getSpan(ctx)?.spanContext();
  if (spanContext === undefined || (spanContext.traceFlags & TraceFlags.SAMPLED) === 0) return undefined;
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}
