import { context, ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { SamplingDecision, StackContextManager, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import { jest } from '@jest/globals';
import { configuredSampler, rootSpanMaker, StagedTraceIds } from './root-sampling.js';
import { startSpan, useTracer } from './tracing.js';

describe('roots decided before they are made', () => {
  const exporter = new InMemorySpanExporter();
  const sampler = configuredSampler({ sampler: 'parentbased_traceidratio', samplerRatio: 0.25 });
  const ids = new StagedTraceIds();
  const provider = new NodeTracerProvider({
    sampler,
    idGenerator: ids,
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('test');
  const made = jest.spyOn(tracer, 'startSpan');
  const spanIds = jest.spyOn(ids, 'generateSpanId');
  const drawn = jest.spyOn(ids, 'draw');

  beforeAll(() => {
    provider.register({ contextManager: new StackContextManager() });
    useTracer(tracer, undefined, rootSpanMaker(tracer, sampler, ids));
  });
  afterEach(() => {
    exporter.reset();
    made.mockClear();
    spanIds.mockClear();
    drawn.mockClear();
  });
  afterAll(async () => {
    useTracer(undefined);
    await provider.shutdown();
    trace.disable();
    context.disable();
  });

  const root = (name = 'GET /api/apps/:appId') =>
    startSpan(name, { 'http.route': '/api/apps/:appId' }, { kind: SpanKind.SERVER, root: true });

  it('makes only the roots the ratio keeps, with the trace id it decided on, and nothing for the rest', () => {
    const ratio = new TraceIdRatioBasedSampler(0.25);
    const kept = Array.from({ length: 800 }, () => root()).filter((span) => span !== undefined);
    for (const span of kept) span.end();
    // Every draw was decided; the SDK was asked (and drew a span id) for the kept ones only.
    expect(drawn).toHaveBeenCalledTimes(800);
    expect(made).toHaveBeenCalledTimes(kept.length);
    expect(spanIds).toHaveBeenCalledTimes(kept.length);
    expect(kept.length).toBeGreaterThan(100);
    expect(kept.length).toBeLessThan(300);
    const decided = drawn.mock.results.map((result) => result.value as string);
    const keptIds = decided.filter(
      (traceId) => ratio.shouldSample(ROOT_CONTEXT, traceId).decision === SamplingDecision.RECORD_AND_SAMPLED,
    );
    const exported = exporter.getFinishedSpans();
    expect(exported.map((span) => span.spanContext().traceId)).toEqual(keptIds);
    for (const span of exported) {
      expect(span.parentSpanContext).toBeUndefined();
      expect(span.spanContext().traceFlags & TraceFlags.SAMPLED).toBe(TraceFlags.SAMPLED);
    }
  });

  it('leaves no decided trace id behind for another root when the SDK made none (tracing suppressed)', () => {
    const suppressed = suppressTracing(ROOT_CONTEXT);
    let attempts = 0;
    while (made.mock.calls.length === 0 && attempts++ < 200)
      expect(startSpan('suppressed', {}, { root: true, parent: suppressed })).toBeUndefined();
    expect(made).toHaveBeenCalledTimes(1);
    const decided = drawn.mock.results.at(-1)!.value as string;
    // A root made by anyone else (an instrumentation's tracer shares the ids) gets a trace of its own.
    const other = provider.getTracer('other').startSpan('other', { root: true }, ROOT_CONTEXT);
    expect(other.spanContext().traceId).not.toBe(decided);
    other.end();
  });

  it('builds each sampler OTEL_TRACES_SAMPLER names, with its ratio', () => {
    const decide = (name: Parameters<typeof configuredSampler>[0]['sampler'], samplerRatio = 1) =>
      configuredSampler({ sampler: name, samplerRatio }).shouldSample(
        ROOT_CONTEXT,
        ids.draw(),
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
