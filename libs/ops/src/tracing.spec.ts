import { Writable } from 'node:stream';
import { context, createContextKey, propagation, SpanStatusCode, trace } from '@opentelemetry/api';
import { isTracingSuppressed, suppressTracing } from '@opentelemetry/core';
import {
  AlwaysOffSampler,
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { StackContextManager } from '@opentelemetry/sdk-trace';
import { createJsonLogger, JsonNestLogger } from './logger.js';
import {
  contextWithSpan,
  inContext,
  OUTCOME,
  startSpan,
  traceHeaders,
  traceIds,
  useTracer,
  withSpan,
} from './tracing.js';

/** A JSON logger writing into `lines`. */
function jsonLogger(lines: Array<Record<string, unknown>>): JsonNestLogger {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().trim().split('\n')) lines.push(JSON.parse(line));
      done();
    },
  });
  return new JsonNestLogger(createJsonLogger('gateway', 'info', sink));
}

/** Where a call enters: the only spans that may start a trace. */
const root = { root: true };

describe('withSpan and the log lines of a traced call', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

  // As the services trace: a context is active only while synchronous code runs (see tracing.ts).
  beforeAll(() => provider.register({ contextManager: new StackContextManager() }));
  afterEach(() => {
    useTracer(undefined);
    exporter.reset();
  });
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  it('with tracing off, runs the work and makes nothing: no span, no trace ids in logs, no headers', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = jsonLogger(lines);
    const value = await withSpan('call', { 'appcat.route': '/api/apps' }, async (span) => {
      span.set({ [OUTCOME]: 'ok' });
      logger.log('inside');
      return traceHeaders();
    });
    expect(value).toEqual({});
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(lines[0]).not.toHaveProperty('trace_id');
  });

  it('ends a span when its work settles, with the failure code as the outcome', async () => {
    useTracer(provider.getTracer('test'));
    await withSpan('ok', { 'appcat.rail': 'credits' }, async (span) => span.set({ [OUTCOME]: 'ok' }), root);
    const failure = Object.assign(new Error('refused'), { code: 'PAYMENT_REFUSED' });
    await expect(
      withSpan(
        'refused',
        {},
        async () => {
          throw failure;
        },
        root,
      ),
    ).rejects.toBe(failure);
    expect(() =>
      withSpan(
        'thrown',
        {},
        () => {
          throw new Error('sync');
        },
        root,
      ),
    ).toThrow('sync');
    await expect(
      withSpan(
        'miss',
        {},
        async (span) => {
          span.set({ [OUTCOME]: 'miss' });
          throw new Error('not cached');
        },
        root,
      ),
    ).rejects.toThrow('not cached');
    const [ok, refused, thrown, miss] = exporter.getFinishedSpans();
    // A failure the work named itself is that outcome, not an error.
    expect(miss.attributes[OUTCOME]).toBe('miss');
    expect(miss.status.code).toBe(SpanStatusCode.UNSET);
    expect(ok.attributes).toEqual({ 'appcat.rail': 'credits', [OUTCOME]: 'ok' });
    expect(refused.attributes[OUTCOME]).toBe('PAYMENT_REFUSED');
    expect(refused.status.code).toBe(SpanStatusCode.ERROR);
    expect(thrown.attributes[OUTCOME]).toBe('error');
  });

  it('nests spans and writes the trace id on the log lines written inside one', async () => {
    useTracer(provider.getTracer('test'));
    const lines: Array<Record<string, unknown>> = [];
    const logger = jsonLogger(lines);
    await withSpan(
      'call',
      {},
      () => withSpan('step', {}, async () => logger.log({ msg: 'step', requestId: 'r-1' })),
      root,
    );
    logger.log('outside');
    const [step, call] = exporter.getFinishedSpans();
    expect(step.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(lines[0]).toMatchObject({
      requestId: 'r-1',
      trace_id: call.spanContext().traceId,
      span_id: step.spanContext().spanId,
    });
    expect(lines[1]).not.toHaveProperty('trace_id');
  });

  it('outside a sampled trace, makes no span and enters no context: only a root may start a trace', async () => {
    useTracer(provider.getTracer('test'));
    const active = () => trace.getActiveSpan();
    expect(await withSpan('step', {}, async () => active())).toBeUndefined();
    const unsampled = trace.wrapSpanContext({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 0,
    });
    const inside = await context.with(trace.setSpan(context.active(), unsampled), () =>
      withSpan('step', {}, async () => ({ span: active(), headers: traceHeaders() }), root),
    );
    expect(inside).toEqual({ span: unsampled, headers: {} });
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('a root the sampler does not keep makes no span', async () => {
    const never = new NodeTracerProvider({
      sampler: new AlwaysOffSampler(),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    useTracer(never.getTracer('test'));
    expect(startSpan('call', {}, root)).toBeUndefined();
    await withSpan('call', {}, async () => expect(trace.getActiveSpan()).toBeUndefined(), root);
    expect(exporter.getFinishedSpans()).toEqual([]);
    await never.shutdown();
  });
});

describe('trace context given explicitly past an await', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

  beforeAll(() => {
    provider.register({ contextManager: new StackContextManager() });
    useTracer(provider.getTracer('test'));
  });
  afterAll(async () => {
    useTracer(undefined);
    await provider.shutdown();
    trace.disable();
    propagation.disable();
  });
  afterEach(() => exporter.reset());

  it('a leaf span is a child of its parent, ended with its outcome, with no context made or entered', () => {
    const call = startSpan('call', {}, root)!;
    const callContext = contextWithSpan(call);
    const checked = inContext(callContext, () =>
      withSpan(
        'validate',
        { 'appcat.route': 'apps.get' },
        (span) => {
          expect(span.context).toBeUndefined();
          // The parent's context stays the active one: the leaf entered none of its own.
          expect(trace.getActiveSpan()).toBe(call);
          span.set({ [OUTCOME]: 'invalid' });
          return 'checked';
        },
        { leaf: true },
      ),
    );
    expect(checked).toBe('checked');
    expect(() =>
      withSpan(
        'envelope',
        {},
        () => {
          throw Object.assign(new Error('closed'), { code: 'WRITE_FAILED' });
        },
        { leaf: true, parent: callContext },
      ),
    ).toThrow('closed');
    call.end();
    const [validate, envelope] = exporter.getFinishedSpans();
    expect(validate.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(validate.attributes).toEqual({ 'appcat.route': 'apps.get', [OUTCOME]: 'invalid' });
    expect(envelope.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(envelope.attributes[OUTCOME]).toBe('WRITE_FAILED');
  });

  it('a span takes its parent from `parent`, and passes its own on as `span.context`', async () => {
    const call = startSpan('call', {}, root)!;
    const callContext = contextWithSpan(call);
    const carried = await withSpan(
      'step',
      {},
      async (span) => {
        // Active while the work runs synchronously; after an await nothing carries it.
        expect(trace.getActiveSpan()?.spanContext().spanId).toBe(trace.getSpan(span.context!)?.spanContext().spanId);
        await Promise.resolve();
        expect(trace.getActiveSpan()).toBeUndefined();
        return withSpan('inner', {}, async (inner) => traceHeaders(inner.context), { parent: span.context });
      },
      { parent: callContext },
    );
    call.end();
    const spans = exporter.getFinishedSpans();
    const [inner, step] = spans;
    expect(spans.map((s) => s.name)).toEqual(['inner', 'step', 'call']);
    expect(step.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(inner.parentSpanContext?.spanId).toBe(step.spanContext().spanId);
    expect(carried.traceparent).toBe(`00-${call.spanContext().traceId}-${inner.spanContext().spanId}-01`);
    expect(traceIds(callContext)).toEqual({ trace_id: call.spanContext().traceId, span_id: call.spanContext().spanId });
  });

  it('without a parent given, a step makes no span, carries no context and its log ids are none', async () => {
    const made = await withSpan('step', {}, async (span) => ({ context: span.context, headers: traceHeaders() }));
    expect(made).toEqual({ context: undefined, headers: {} });
    expect(traceIds(undefined)).toBeUndefined();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('a parent that is not sampled makes no span: its steps cost a check each', async () => {
    const unsampled = trace.setSpan(
      context.active(),
      trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 0 }),
    );
    const made = await withSpan('step', {}, async (span) => span.context, { parent: unsampled });
    expect(made).toBeUndefined();
    expect(traceHeaders(unsampled)).toEqual({});
    expect(traceIds(unsampled)).toBeUndefined();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it("a span's context answers the API as the API's own does: its span, its parent's values, and what is set or deleted on it", () => {
    const key = createContextKey('test key');
    const parent = context.active().setValue(key, 'parent value');
    const span = startSpan('call', {}, root)!;
    const ours = contextWithSpan(span, parent);
    const theirs = trace.setSpan(parent, span);
    const other = startSpan('other', {}, root)!;
    for (const ctx of [ours, theirs]) {
      expect(trace.getSpan(ctx)).toBe(span);
      expect(ctx.getValue(key)).toBe('parent value');
      expect(trace.getSpan(trace.setSpan(ctx, other))).toBe(other);
      expect(trace.getSpan(trace.deleteSpan(ctx))).toBeUndefined();
      expect(trace.getSpan(trace.deleteSpan(ctx).setValue(key, 'mine'))).toBeUndefined();
      expect(ctx.deleteValue(key).getValue(key)).toBeUndefined();
      expect(ctx.setValue(key, 'child value').getValue(key)).toBe('child value');
      // Unchanged by what was made from it.
      expect(ctx.getValue(key)).toBe('parent value');
      expect(trace.getSpan(ctx)).toBe(span);
      expect(isTracingSuppressed(suppressTracing(ctx))).toBe(true);
      expect(isTracingSuppressed(ctx)).toBe(false);
    }
    expect(traceHeaders(ours)).toEqual(traceHeaders(theirs));
    expect(traceHeaders(ours).traceparent).toContain(span.spanContext().spanId);
    span.end();
    other.end();
  });

  it("traceHeaders write what the registered propagators write: the span's trace context, its trace state, baggage", () => {
    const remote = propagation.extract(context.active(), {
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      tracestate: 'vendor=one,other=two',
    });
    const withState = startSpan('child of remote', {}, { parent: remote })!;
    const plain = startSpan('call', {}, root)!;
    const baggage = propagation.setBaggage(context.active(), propagation.createBaggage({ tenant: { value: 'a' } }));
    const contexts = [
      contextWithSpan(plain),
      contextWithSpan(withState, remote),
      contextWithSpan(plain, baggage),
      suppressTracing(contextWithSpan(plain)),
    ];
    const injected = contexts.map((ctx) => {
      const carrier: Record<string, string> = {};
      propagation.inject(ctx, carrier);
      return carrier;
    });
    expect(contexts.map((ctx) => traceHeaders(ctx))).toEqual(injected);
    expect(injected.map((carrier) => Object.keys(carrier).sort())).toEqual([
      ['traceparent'],
      ['traceparent', 'tracestate'],
      ['baggage', 'traceparent'],
      [],
    ]);
    expect(injected[1].tracestate).toBe('vendor=one,other=two');
    withState.end();
    plain.end();
  });
});
