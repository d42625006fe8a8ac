import { jest } from '@jest/globals';
import {
  type Context,
  context,
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Tracer,
} from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer/build/src/trace/protobuf/index.js';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  type ReadableSpan,
  SamplingDecision,
  StackContextManager,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { configuredSampler } from './configured-sampler.js';
import { OtlpSpanBatchEncoder } from './otlp-span-encoder.js';
import { SpanRecorder } from './recorded-span.js';
import { endSpan, startSpan, useTracer, withSpan } from './tracing.js';
import type { TracingConfig } from './tracing-config.js';

type SamplerSettings = Pick<TracingConfig, 'sampler' | 'samplerRatio'>;

describe('spans recorded without the SDK tracer', () => {
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor(exporter);
  const onStart = jest.spyOn(processor, 'onStart');
  const resource = resourceFromAttributes({ 'service.name': 'gateway' });
  const scope = { name: 'appcat' };
  const recordWith = (settings: SamplerSettings) =>
    // The tracer only says tracing is on: with a recorder, no span of ours is made by it.
    useTracer(trace.getTracer('unused'), undefined, new SpanRecorder(resource, scope, processor, settings));

  beforeAll(() => context.setGlobalContextManager(new StackContextManager()));
  afterEach(() => {
    exporter.reset();
    onStart.mockClear();
    useTracer(undefined);
  });
  afterAll(() => context.disable());

  const root = () =>
    startSpan('GET /api/apps/:appId', { 'http.route': '/api/apps/:appId' }, { kind: SpanKind.SERVER, root: true });

  /** What the processor has exported (it exports each span a turn after its end). */
  const finished = async () => {
    await processor.forceFlush();
    return exporter.getFinishedSpans();
  };

  it('keeps the roots a traceidratio sampler keeps, decided on their id, and makes nothing for the rest', async () => {
    recordWith({ sampler: 'parentbased_traceidratio', samplerRatio: 0.25 });
    const kept = Array.from({ length: 800 }, root).filter((span) => span !== undefined);
    for (const span of kept) span.end();
    const exported = await finished();
    expect(exported).toHaveLength(kept.length);
    expect(kept.length).toBeGreaterThan(100);
    expect(kept.length).toBeLessThan(300);
    // Only kept roots reached the processor, and the SDK's own sampler keeps each of their ids.
    expect(onStart).toHaveBeenCalledTimes(kept.length);
    // Ids as random as the SDK's: all distinct, and each of their four 32-bit words' top bit both set and clear.
    const ids = exported.map((span) => span.spanContext().traceId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const at of [0, 8, 16, 24]) {
      const topBits = new Set(ids.map((id) => Number.parseInt(id[at], 16) >> 3));
      expect(topBits).toEqual(new Set([0, 1]));
    }
    const ratio = new TraceIdRatioBasedSampler(0.25);
    for (const span of exported) {
      expect(ratio.shouldSample(ROOT_CONTEXT, span.spanContext().traceId).decision).toBe(
        SamplingDecision.RECORD_AND_SAMPLED,
      );
      expect(span.parentSpanContext).toBeUndefined();
      expect(span.spanContext().traceFlags).toBe(TraceFlags.SAMPLED);
    }
  });

  it('drops the roots the ratio drops: the ids it keeps fall under its bound, across ratios', () => {
    for (const samplerRatio of [0, 0.5, 1]) {
      recordWith({ sampler: 'traceidratio', samplerRatio });
      const made = Array.from({ length: 400 }, root).filter((span) => span !== undefined).length;
      if (samplerRatio === 0) expect(made).toBe(0);
      else if (samplerRatio === 1) expect(made).toBe(400);
      else expect(made).toBeGreaterThan(120);
    }
  });

  it('asks any other sampler for a root, and makes nothing under one that keeps none', () => {
    recordWith({ sampler: 'parentbased_always_off', samplerRatio: 1 });
    expect(root()).toBeUndefined();
    recordWith({ sampler: 'always_on', samplerRatio: 1 });
    expect(root()).toBeDefined();
  });

  it('makes nothing where tracing is suppressed', () => {
    recordWith({ sampler: 'parentbased_always_on', samplerRatio: 1 });
    expect(startSpan('exporting', {}, { root: true, parent: suppressTracing(ROOT_CONTEXT) })).toBeUndefined();
    expect(onStart).not.toHaveBeenCalled();
  });

  it("records a sampled span's children in its trace; a sampler that is not parent-based is asked for each", async () => {
    recordWith({ sampler: 'parentbased_traceidratio', samplerRatio: 1 });
    await withSpan('call', {}, () => withSpan('step', { 'appcat.route': 'apps.get' }, async () => 'done'), {
      root: true,
    });
    const [step, call] = await finished();
    expect(step.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(step.spanContext().traceId).toBe(call.spanContext().traceId);
    // A remote sampled parent under always_off: the sampler, not the parent, decides.
    recordWith({ sampler: 'always_off', samplerRatio: 1 });
    const remote = trace.setSpan(
      ROOT_CONTEXT,
      trace.wrapSpanContext({
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: 'b7ad6b7169203331',
        traceFlags: TraceFlags.SAMPLED,
        isRemote: true,
      }),
    );
    expect(startSpan('payments.credits.debit', {}, { parent: remote })).toBeUndefined();
  });

  it('is a ReadableSpan the SDK serializes as our encoder does, with what the SDK would record', async () => {
    recordWith({ sampler: 'parentbased_always_on', samplerRatio: 1 });
    const span = startSpan('gateway.debit', { 'appcat.rail': 'credits', 'appcat.missing': undefined }, { root: true })!;
    span.setAttribute('appcat.route', 'apps.get');
    span.addEvent('retried', { 'appcat.attempt': 2 });
    span.recordException(Object.assign(new Error('boom'), { code: 'E_BOOM' }));
    // Spans share one empty array of links and of events, and one unset status: what one gets is its own.
    const other = startSpan('other', {}, { root: true })! as unknown as ReadableSpan & { end(): void };
    span.addLink({ context: other.spanContext() });
    expect(other.links).toEqual([]);
    expect(other.events).toEqual([]);
    expect(other.status).toEqual({ code: SpanStatusCode.UNSET });
    span.setStatus({ code: SpanStatusCode.UNSET });
    endSpan(span, 'PAYMENT_REFUSED');
    span.setAttribute('after.end', 'ignored');
    span.end();
    const exported = await finished();
    expect(exported).toHaveLength(1);
    const ended: ReadableSpan = exported[0];
    expect(ended.attributes).toEqual({
      'appcat.rail': 'credits',
      'appcat.route': 'apps.get',
      'appcat.outcome': 'PAYMENT_REFUSED',
    });
    expect(ended.status).toEqual({ code: SpanStatusCode.ERROR, message: 'PAYMENT_REFUSED' });
    expect(ended.events.map((event) => event.name)).toEqual(['retried', 'exception']);
    expect(ended.events[1].attributes).toMatchObject({ 'exception.type': 'E_BOOM', 'exception.message': 'boom' });
    expect(ended.links.map((link) => link.context.spanId)).toEqual([other.spanContext().spanId]);
    expect(ended.ended).toBe(true);
    expect(ended.resource).toBe(resource);
    expect(ended.instrumentationScope).toBe(scope);
    // Start from the clock, end no earlier.
    const nanos = ([s, ns]: [number, number]) => BigInt(s) * 1_000_000_000n + BigInt(ns);
    expect(Math.abs(Number(nanos(ended.startTime) / 1_000_000n) - Date.now())).toBeLessThan(5_000);
    expect(nanos(ended.endTime)).toBeGreaterThanOrEqual(nanos(ended.startTime));
    expect(nanos(ended.duration)).toBe(nanos(ended.endTime) - nanos(ended.startTime));
    const encoder = new OtlpSpanBatchEncoder();
    encoder.add(ended);
    expect(Buffer.from(encoder.finish()!)).toEqual(Buffer.from(ProtobufTraceSerializer.serializeRequest([ended])!));
  });

  describe("as the instrumentations' tracer provider", () => {
    const sdkExporter = new InMemorySpanExporter();
    const sdk = new BasicTracerProvider({
      resource,
      sampler: configuredSampler({ sampler: 'parentbased_always_on', samplerRatio: 1 }),
      spanProcessors: [new SimpleSpanProcessor(sdkExporter)],
    });
    const recorderWith = (settings: SamplerSettings) => new SpanRecorder(resource, scope, processor, settings);
    afterEach(() => sdkExporter.reset());

    /** What an instrumentation does with its tracer: a client span under the active one, ended. */
    const instrumented = (tracer: Tracer, parent: Context) => {
      const span = context.with(parent, () =>
        tracer.startSpan('evalsha', {
          kind: SpanKind.CLIENT,
          attributes: { 'db.system': 'redis', 'db.statement': 'evalsha', 'net.peer.port': 6379 },
        }),
      );
      span.setAttributes({ 'db.response': undefined });
      span.end();
      return span;
    };
    const sampledParent = trace.setSpan(
      ROOT_CONTEXT,
      trace.wrapSpanContext({
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: 'b7ad6b7169203331',
        traceFlags: TraceFlags.SAMPLED,
      }),
    );
    const essentials = (span: ReadableSpan) => ({
      name: span.name,
      kind: span.kind,
      traceId: span.spanContext().traceId,
      traceFlags: span.spanContext().traceFlags,
      parent: span.parentSpanContext?.spanId,
      attributes: span.attributes,
      scope: { name: span.instrumentationScope.name, version: span.instrumentationScope.version },
      status: span.status,
    });

    it("records an instrumentation's span under the active one, in its own scope, as the SDK's tracer does", async () => {
      const recorder = recorderWith({ sampler: 'parentbased_always_on', samplerRatio: 1 });
      useTracer(trace.getTracer('unused'), undefined, recorder);
      const provider = recorder.tracerProvider;
      const tracer = provider.getTracer('@opentelemetry/instrumentation-ioredis', '0.71.0');
      expect(provider.getTracer('@opentelemetry/instrumentation-ioredis', '0.71.0')).toBe(tracer);
      instrumented(tracer, sampledParent);
      instrumented(sdk.getTracer('@opentelemetry/instrumentation-ioredis', '0.71.0'), sampledParent);
      const [ours] = await finished();
      await sdk.forceFlush();
      const [theirs] = sdkExporter.getFinishedSpans();
      expect(essentials(ours)).toEqual(essentials(theirs));
      expect(ours.spanContext().spanId).not.toBe(theirs.spanContext().spanId);
      // Two scopes in one batch, each spans' own: byte for byte what the SDK's serializer writes.
      const own = startSpan('payments.credits.debit', {}, { parent: sampledParent })!;
      own.end();
      const both = await finished();
      expect(both.map((span) => span.instrumentationScope.name)).toEqual([
        '@opentelemetry/instrumentation-ioredis',
        'appcat',
      ]);
      const encoder = new OtlpSpanBatchEncoder();
      for (const span of both) encoder.add(span);
      expect(Buffer.from(encoder.finish()!)).toEqual(Buffer.from(ProtobufTraceSerializer.serializeRequest(both)!));
    });

    it('records nothing under a parent not sampled, suppressed tracing or a dropped root, and carries the trace on', async () => {
      const tracer = recorderWith({ sampler: 'parentbased_traceidratio', samplerRatio: 0 }).tracerProvider.getTracer(
        'ioredis',
      );
      const notSampled = trace.setSpan(
        ROOT_CONTEXT,
        trace.wrapSpanContext({
          traceId: '0af7651916cd43dd8448eb211c80319c',
          spanId: 'b7ad6b7169203331',
          traceFlags: TraceFlags.NONE,
        }),
      );
      const child = instrumented(tracer, notSampled);
      expect(child.isRecording()).toBe(false);
      expect(child.spanContext()).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', traceFlags: 0 });
      expect(child.spanContext().spanId).not.toBe('b7ad6b7169203331');
      expect(isSpanContextValid(child.spanContext())).toBe(true);
      const root = instrumented(tracer, ROOT_CONTEXT);
      expect(root.isRecording()).toBe(false);
      expect(isSpanContextValid(root.spanContext())).toBe(true);
      expect(isSpanContextValid(instrumented(tracer, suppressTracing(sampledParent)).spanContext())).toBe(false);
      expect(await finished()).toHaveLength(0);
      expect(onStart).not.toHaveBeenCalled();
    });

    it("gives a tracer asked for by our scope's name our spans' very scope", async () => {
      const provider = recorderWith({ sampler: 'parentbased_always_on', samplerRatio: 1 }).tracerProvider;
      provider.getTracer(scope.name).startSpan('ours', { root: true }).end();
      const [ours] = await finished();
      expect(ours.instrumentationScope).toBe(scope);
    });

    it('starts a root when asked, from the start time given, and runs an active span', async () => {
      const tracer = recorderWith({ sampler: 'parentbased_always_on', samplerRatio: 1 }).tracerProvider.getTracer(
        'undici',
      );
      const startTime = Date.now() - 250;
      const root = context.with(sampledParent, () => tracer.startSpan('GET', { root: true, startTime }));
      const answer = tracer.startActiveSpan('inner', (span) => {
        expect(trace.getSpan(context.active())).toBe(span);
        span.end();
        return 42;
      });
      expect(answer).toBe(42);
      root.end();
      const [inner, got] = await finished();
      expect(got.parentSpanContext).toBeUndefined();
      expect(got.spanContext().traceId).not.toBe('0af7651916cd43dd8448eb211c80319c');
      const millis = ([s, ns]: [number, number]) => s * 1000 + ns / 1e6;
      expect(Math.abs(millis(got.startTime) - startTime)).toBeLessThan(1);
      expect(millis(got.duration)).toBeGreaterThanOrEqual(249);
      expect(inner.name).toBe('inner');
    });
  });

  it('builds each sampler OTEL_TRACES_SAMPLER names, with its ratio', () => {
    const decide = (name: SamplerSettings['sampler'], samplerRatio = 1) =>
      configuredSampler({ sampler: name, samplerRatio }).shouldSample(
        ROOT_CONTEXT,
        '0af7651916cd43dd8448eb211c80319c',
        'r',
        SpanKind.SERVER,
        {},
        [],
      ).decision;
    expect(decide('always_on')).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide('parentbased_always_on')).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide('always_off')).toBe(SamplingDecision.NOT_RECORD);
    expect(decide('parentbased_always_off')).toBe(SamplingDecision.NOT_RECORD);
    expect(decide('traceidratio', 0)).toBe(SamplingDecision.NOT_RECORD);
    expect(decide('parentbased_traceidratio', 1)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(configuredSampler({ sampler: 'parentbased_traceidratio', samplerRatio: 0.1 }).toString()).toContain('0.1');
  });
});
