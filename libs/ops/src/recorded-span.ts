/**
 * The spans of our own code (libs/ops tracing.ts `startSpan`), made and recorded here rather than by
 * the SDK's Tracer and Span; the instrumentations' spans (ioredis, pg, HTTP) are still the SDK's. Both
 * go to the same span processor. Part of the tracing SDK (tracing-sdk.ts): loaded only with tracing on.
 *
 * Why: on the credit path, a sampled call's spans cost the stack about four times as much CPU at 10 %
 * sampling (some 220 µs a sampled call) as when every call is sampled (some 90 µs): code run one call
 * in ten runs with cold caches, so what a span costs is mostly how much code and memory it touches.
 * The SDK's path for one is long (the tracer's checks, attributes sanitized twice, a dozen objects,
 * span metrics, a processor fan-out). A span here is one object with its fields, decided as below,
 * its end handed to the processor: with every call sampled, the gateway's tracing cost went from about
 * 72 to 57 µs a call. What it gives up: the SDK's span limits (OTEL_SPAN_*), which our spans, with a
 * handful of attributes each, never reach.
 */
import {
  type Attributes,
  type AttributeValue,
  type Context,
  type Exception,
  type HrTime,
  type Link,
  type Span,
  type SpanContext,
  type SpanKind,
  type SpanStatus,
  SpanStatusCode,
  type TimeInput,
  TraceFlags,
} from '@opentelemetry/api';
import {
  addHrTimes,
  hrTimeDuration,
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
import type { SpanMaker, SpanStartOptions } from './tracing.js';
import type { TracingConfig } from './tracing-config.js';

/** A root without links is sampled with one shared array, not one per call. */
const NO_LINKS: Link[] = [];

/** A root's trace id as it is drawn: four random 32-bit words, written out as hex only if kept. */
const ID_WORDS = Buffer.alloc(16);

/**
 * Makes our spans, deciding each as the configured sampler (`configuredSampler`) would, and records a
 * kept one for `processor`, under the service's resource and our instrumentation scope. Two decisions
 * are known without asking it, and are the hot ones:
 * - under a parent-based sampler, a child of a sampled span is sampled (its default for a sampled
 *   parent, local or remote, is always on);
 * - under a traceidratio sampler (parent-based or not), a root is decided by its trace id alone: the
 *   id's four 32-bit words, xored, under ratio × (2^32 − 1), as the SDK's TraceIdRatioBasedSampler
 *   reads them off the id's hex. The words are drawn and decided on before the id is written out, so a
 *   root it drops (nine in ten at 10 %) costs four random numbers. It returns no attributes or trace
 *   state to add.
 */
export class SpanRecorder implements SpanMaker {
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
  }

  /**
   * A span under `parent` (`parentContext`'s span, if any, which tracing.ts passes only when sampled),
   * or undefined when tracing is suppressed there or the sampler does not record and sample it (no
   * standard sampler records without sampling).
   */
  start(name: string, options: SpanStartOptions, parentContext: Context, parent?: Span): Span | undefined {
    if (isTracingSuppressed(parentContext)) return undefined;
    const parentSpanContext = parent?.spanContext();
    const links = options.links ?? NO_LINKS;
    let traceId: string;
    let decided: SamplingResult | undefined;
    if (parentSpanContext !== undefined) {
      traceId = parentSpanContext.traceId;
      if (!this.followsParent) decided = this.decide(name, options, parentContext, traceId, links);
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
    const span = new RecordedSpan(this, name, options.kind, spanContext, parentSpanContext, links);
    span.setAttributes(options.attributes);
    if (decided?.attributes) span.setAttributes(decided.attributes);
    this.processor.onStart(span, parentContext);
    return span;
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

  /** A new root's trace id when the ratio keeps the root; undefined when it drops it. */
  private keptRootTraceId(): string | undefined {
    let xored = 0;
    let any = 0;
    for (let at = 0; at < 16; at += 4) {
      const word = (Math.random() * 0x100000000) >>> 0;
      xored ^= word;
      any |= word;
      ID_WORDS.writeUInt32BE(word, at);
    }
    // An id of zeros is no valid id (the sampler would drop it too).
    return xored >>> 0 < this.rootBound! && any !== 0 ? ID_WORDS.toString('hex') : undefined;
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
  readonly events: TimedEvent[] = [];
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  readonly startTime: HrTime;
  endTime: HrTime = [0, 0];
  duration: HrTime = [-1, -1];
  ended = false;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  private readonly startedAt = performance.now();

  constructor(
    private readonly recorder: SpanRecorder,
    public name: string,
    readonly kind: SpanKind,
    private readonly context: SpanContext,
    readonly parentSpanContext: SpanContext | undefined,
    public links: Link[],
  ) {
    this.startTime = millisToHrTime(Date.now());
  }

  get resource(): Resource {
    return this.recorder.resource;
  }

  get instrumentationScope(): InstrumentationScope {
    return this.recorder.scope;
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
    this.events.push({ name, attributes, time: this.time(at), droppedAttributesCount: 0 });
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
