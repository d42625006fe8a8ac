/**
 * Every span a traced service makes, recorded here rather than by the SDK's Tracer and Span: our own
 * code's (libs/ops tracing.ts `startSpan`) and the instrumentations' (ioredis, pg, HTTP, undici), whose
 * tracer provider this is (`SpanRecorder.tracerProvider`). Part of the tracing SDK (tracing-sdk.ts):
 * loaded only with tracing on.
 *
 * Why: on the credit path, a sampled call's spans cost the stack about four times as much CPU at 10 %
 * sampling (some 220 µs a sampled call) as when every call is sampled (some 90 µs): code run one call
 * in ten runs with cold caches, so what a span costs is mostly how much code and memory it touches.
 * The SDK's path for one is long (the tracer's checks, attributes sanitized twice, a dozen objects,
 * span metrics, a processor fan-out). A span here is one object with its fields, decided as below,
 * its end handed to the processor: with every call sampled, the gateway's tracing cost went from about
 * 72 to 57 µs a call. The instrumentations' spans take the same path, so a sampled call runs one span
 * implementation, not two (payments' Redis span was the one SDK span of each sampled credit call). What
 * it gives up: the SDK's span limits (OTEL_SPAN_*, 128 attributes, events and links by default), which
 * our spans, with a handful of attributes each, and the instrumentations', with about a dozen, never reach.
 */
import {
  type Attributes,
  type AttributeValue,
  type Context,
  context,
  type Exception,
  type HrTime,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  type Link,
  type Span,
  type SpanContext,
  SpanKind,
  type SpanOptions,
  type SpanStatus,
  SpanStatusCode,
  type TimeInput,
  trace,
  TraceFlags,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import {
  addHrTimes,
  hrTimeDuration,
  hrTimeToMilliseconds,
  type InstrumentationScope,
  isAttributeValue,
  isTimeInput,
  isTracingSuppressed,
  millisToHrTime,
  timeInputToHrTime,
} from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import {
  type IdGenerator,
  RandomIdGenerator,
  type ReadableSpan,
  type Sampler,
  SamplingDecision,
  type SamplingResult,
  type SpanProcessor,
  type TimedEvent,
} from '@opentelemetry/sdk-trace';
import { configuredSampler } from './configured-sampler.js';
import { contextWithSpan, type SpanMaker, type SpanStartOptions } from './tracing.js';
import type { TracingConfig } from './tracing-config.js';

/**
 * What a span starts with, shared by every span rather than made for each: each is replaced, never
 * changed, when the span gets its own (a link or event added, a status set, its end).
 */
const NO_LINKS: Link[] = [];
const NO_EVENTS: TimedEvent[] = [];
const UNSET: SpanStatus = { code: SpanStatusCode.UNSET };
const NOT_ENDED: HrTime = [0, 0];
const NO_DURATION: HrTime = [-1, -1];

/** A root's trace id as it is drawn: four random 32-bit words, written out as hex only if kept. */
const ID_WORDS = Buffer.alloc(16);

/**
 * Makes spans, deciding each as the configured sampler (`configuredSampler`) would, and records a kept
 * one for `processor`, under the service's resource and our instrumentation scope (or, through
 * `tracerProvider`, an instrumentation's). Two decisions
 * are known without asking it, and are the hot ones:
 * - under a parent-based sampler, a child of a sampled span is sampled (its default for a sampled
 *   parent, local or remote, is always on);
 * - under a traceidratio sampler (parent-based or not), a root is decided by its trace id alone: the
 *   id's four 32-bit words, xored, under ratio × (2^32 − 1), as the SDK's TraceIdRatioBasedSampler
 *   reads them off the id's hex. Their xor is drawn first and decided on, so a root it drops (nine in
 *   ten at 10 %) costs one random number (`keptRootTraceId`). It returns no attributes or trace
 *   state to add.
 */
export class SpanRecorder implements SpanMaker {
  /**
   * The instrumentations' tracer provider (and the global one): each tracer records here under its
   * instrumentation's own scope, as the SDK's tracer would, parent and sampling included.
   */
  readonly tracerProvider: TracerProvider;
  private readonly sampler: Sampler;
  private readonly followsParent: boolean;
  /** Under a traceidratio sampler, the bound a kept root's id words, xored, fall under. */
  private readonly rootBound: number | undefined;

  constructor(
    readonly resource: Resource,
    readonly scope: InstrumentationScope,
    readonly processor: SpanProcessor,
    config: Pick<TracingConfig, 'sampler' | 'samplerRatio'>,
    private readonly ids: IdGenerator = new RandomIdGenerator(),
  ) {
    this.sampler = configuredSampler(config);
    this.followsParent = config.sampler.startsWith('parentbased_');
    const ratio = config.samplerRatio;
    this.rootBound = !config.sampler.endsWith('traceidratio')
      ? undefined
      : ratio >= 1
        ? 0x100000000
        : Math.floor(Math.max(0, ratio) * 0xffffffff);
    // One tracer per scope, our own among them: a tracer asked for by our scope's name records under
    // the very scope our spans have, so the encoder writes them as one ScopeSpans.
    const scopeKey = (name: string, version?: string, schemaUrl?: string) =>
      `${name}@${version ?? ''}@${schemaUrl ?? ''}`;
    const tracers = new Map([[scopeKey(scope.name, scope.version, scope.schemaUrl), new RecordingTracer(this, scope)]]);
    this.tracerProvider = {
      getTracer: (name, version, options) => {
        const key = scopeKey(name, version, options?.schemaUrl);
        let tracer = tracers.get(key);
        if (tracer === undefined) {
          tracer = new RecordingTracer(this, { name, version, schemaUrl: options?.schemaUrl });
          tracers.set(key, tracer);
        }
        return tracer;
      },
    };
  }

  /**
   * A span under `parent` (`parentContext`'s span, if any, with a valid context), in `scope` (ours by
   * default), or undefined when tracing is suppressed there or the sampler does not record and sample it
   * (no standard sampler records without sampling). `startTime`: when the work began, if not now.
   */
  start(
    name: string,
    options: SpanStartOptions,
    parentContext: Context,
    parent?: Span,
    scope: InstrumentationScope = this.scope,
    startTime?: TimeInput,
  ): RecordedSpan | undefined {
    if (isTracingSuppressed(parentContext)) return undefined;
    const parentSpanContext = parent?.spanContext();
    const links = options.links ?? NO_LINKS;
    let traceId: string;
    let decided: SamplingResult | undefined;
    if (parentSpanContext !== undefined) {
      traceId = parentSpanContext.traceId;
      if (!this.followsParent) decided = this.decide(name, options, parentContext, traceId, links);
      // A parent-based sampler's default for a parent not sampled, local or remote, is always off.
      else if ((parentSpanContext.traceFlags & TraceFlags.SAMPLED) === 0) return undefined;
    } else if (this.rootBound !== undefined) {
      const kept = this.keptRootTraceId();
      if (kept === undefined) return undefined;
      traceId = kept;
    } else {
      traceId = this.ids.generateTraceId();
      decided = this.decide(name, options, parentContext, traceId, links);
    }
    if (decided !== undefined && decided.decision !== SamplingDecision.RECORD_AND_SAMPLED) return undefined;
    const spanContext: SpanContext = {
      traceId,
      spanId: this.ids.generateSpanId(),
      traceFlags: TraceFlags.SAMPLED,
      traceState: decided?.traceState ?? parentSpanContext?.traceState,
    };
    const span = new RecordedSpan(this, scope, name, options.kind, spanContext, parentSpanContext, links, startTime);
    span.setAttributes(options.attributes);
    if (decided?.attributes) span.setAttributes(decided.attributes);
    this.processor.onStart(span, parentContext);
    return span;
  }

  /**
   * What the SDK's tracer gives for a span it does not record: a span context that carries the trace
   * on (its parent's trace id, or a new one) marked not sampled, so what it reaches does not sample it.
   */
  unrecorded(parent: SpanContext | undefined): Span {
    return trace.wrapSpanContext({
      traceId: parent?.traceId ?? this.ids.generateTraceId(),
      spanId: this.ids.generateSpanId(),
      traceFlags: TraceFlags.NONE,
      traceState: parent?.traceState,
    });
  }

  private decide(
    name: string,
    options: SpanStartOptions,
    parentContext: Context,
    traceId: string,
    links: Link[],
  ): SamplingResult {
    return this.sampler.shouldSample(parentContext, traceId, name, options.kind, options.attributes, links);
  }

  /**
   * A new root's trace id when the ratio keeps the root; undefined when it drops it. The four words'
   * xor is drawn first, uniform as the xor of four uniform words is; a kept root's first three words
   * are drawn and its last is what makes the four xor to it. So a kept id is as random as four words
   * drawn alone, and a dropped root costs one random number.
   */
  private keptRootTraceId(): string | undefined {
    const xored = (Math.random() * 0x100000000) >>> 0;
    if (xored >= this.rootBound!) return undefined;
    let last = xored;
    let any = 0;
    for (let at = 0; at < 12; at += 4) {
      const word = (Math.random() * 0x100000000) >>> 0;
      last ^= word;
      any |= word;
      ID_WORDS.writeUInt32BE(word, at);
    }
    ID_WORDS.writeUInt32BE(last >>> 0, 12);
    // An id of zeros is no valid id (the sampler would drop it too).
    return (any | last) !== 0 ? ID_WORDS.toString('hex') : undefined;
  }
}

/**
 * One recorded span: the API's Span for the code that makes it, the SDK's ReadableSpan for the
 * processor that exports it. Invariant: ended once, and handed to the processor then; calls after that
 * change nothing. Times as the SDK's own spans take them: the start from the clock, the end from the
 * monotonic time elapsed since.
 */
export class RecordedSpan implements Span, ReadableSpan {
  readonly attributes: Attributes = {};
  events: TimedEvent[] = NO_EVENTS;
  status: SpanStatus = UNSET;
  readonly startTime: HrTime;
  endTime: HrTime = NOT_ENDED;
  duration: HrTime = NO_DURATION;
  ended = false;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  /** The monotonic clock's reading at `startTime`. */
  private readonly startedAt: number;

  constructor(
    private readonly recorder: SpanRecorder,
    readonly instrumentationScope: InstrumentationScope,
    public name: string,
    readonly kind: SpanKind,
    private readonly context: SpanContext,
    readonly parentSpanContext: SpanContext | undefined,
    public links: Link[],
    startTime?: TimeInput,
  ) {
    if (startTime === undefined) {
      this.startTime = millisToHrTime(Date.now());
      this.startedAt = performance.now();
    } else {
      this.startTime = timeInputToHrTime(startTime);
      this.startedAt = performance.now() - (Date.now() - hrTimeToMilliseconds(this.startTime));
    }
  }

  get resource(): Resource {
    return this.recorder.resource;
  }

  spanContext(): SpanContext {
    return this.context;
  }

  /** A value of no attribute type (undefined, an object) is left out, as the SDK leaves it out. */
  setAttribute(key: string, value: AttributeValue | undefined): this {
    if (!this.ended && value !== undefined && value !== null && key.length > 0 && isAttributeValue(value))
      this.attributes[key] = value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key in attributes) {
      if (Object.prototype.hasOwnProperty.call(attributes, key)) this.setAttribute(key, attributes[key]);
    }
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.ended) return this;
    const attributes = isTimeInput(attributesOrTime) ? undefined : attributesOrTime;
    const at = isTimeInput(attributesOrTime) ? attributesOrTime : time;
    const event = { name, attributes, time: this.time(at), droppedAttributesCount: 0 };
    if (this.events === NO_EVENTS) this.events = [event];
    else this.events.push(event);
    return this;
  }

  /** A new array each time: a span made without links shares one empty array with the others. */
  addLink(link: Link): this {
    if (!this.ended) this.links = [...this.links, link];
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  /** As the SDK has it: UNSET changes nothing, OK is final, and only an error keeps its message. */
  setStatus(status: SpanStatus): this {
    if (this.ended || status.code === SpanStatusCode.UNSET || this.status.code === SpanStatusCode.OK) return this;
    this.status =
      status.code === SpanStatusCode.ERROR && typeof status.message === 'string'
        ? { code: status.code, message: status.message }
        : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    if (this.ended) return;
    this.endTime = this.time(endTime);
    this.duration = hrTimeDuration(this.startTime, this.endTime);
    if (this.duration[0] < 0) {
      this.endTime = this.startTime;
      this.duration = [0, 0];
    }
    this.ended = true;
    this.recorder.processor.onEnd(this);
  }

  isRecording(): boolean {
    return !this.ended;
  }

  /** As the SDK records one: an `exception` event, when its type (code, else name) or message is known. */
  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') attributes['exception.message'] = exception;
    else {
      if (exception.code) attributes['exception.type'] = String(exception.code);
      else if (exception.name) attributes['exception.type'] = exception.name;
      if (exception.message) attributes['exception.message'] = exception.message;
      if (exception.stack) attributes['exception.stacktrace'] = exception.stack;
    }
    if (attributes['exception.type'] || attributes['exception.message']) this.addEvent('exception', attributes, time);
  }

  /** `time` as HrTime; now (the start plus the monotonic time elapsed) when not given. */
  private time(time: TimeInput | undefined): HrTime {
    return time === undefined
      ? addHrTimes(this.startTime, millisToHrTime(performance.now() - this.startedAt))
      : timeInputToHrTime(time);
  }
}

/**
 * The API's Tracer over a recorder, for one instrumentation scope: a span started as the SDK's tracer
 * starts one (the active context's span as its parent unless `root`; none where tracing is suppressed)
 * and recorded, or, when the sampler drops it, a span that only carries the trace context on.
 */
class RecordingTracer implements Tracer {
  constructor(
    private readonly recorder: SpanRecorder,
    private readonly scope: InstrumentationScope,
  ) {}

  startSpan(name: string, options: SpanOptions = {}, ctx: Context = context.active()): Span {
    if (isTracingSuppressed(ctx)) return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    const parentContext = options.root ? trace.deleteSpan(ctx) : ctx;
    const parentSpan = trace.getSpan(parentContext);
    const parent = parentSpan !== undefined && isSpanContextValid(parentSpan.spanContext()) ? parentSpan : undefined;
    const start = {
      attributes: options.attributes ?? {},
      kind: options.kind ?? SpanKind.INTERNAL,
      links: options.links,
    };
    return (
      this.recorder.start(name, start, parentContext, parent, this.scope, options.startTime) ??
      this.recorder.unrecorded(parent?.spanContext())
    );
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, options: SpanOptions, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    ctx: Context,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    ...args: [F] | [SpanOptions, F] | [SpanOptions, Context, F]
  ): ReturnType<F> {
    const fn = args[args.length - 1] as F;
    const options = args.length > 1 ? (args[0] as SpanOptions) : undefined;
    const parentContext = args.length > 2 ? (args[1] as Context) : context.active();
    const span = this.startSpan(name, options, parentContext);
    return context.with(
      contextWithSpan(span, parentContext),
      (started: Span) => fn(started) as ReturnType<F>,
      undefined,
      span,
    );
  }
}
