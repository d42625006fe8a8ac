import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync } from 'node:zlib';
import { type Context, ROOT_CONTEXT, type Span, trace, TraceFlags, type Tracer } from '@opentelemetry/api';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, NodeTracerProvider, type Sampler, SamplingDecision } from '@opentelemetry/sdk-trace-node';
import { decodeOtlpTraceRequest } from '@appcat/testing';
import {
  type EncodedSpanBatchLimits,
  type EncodedSpanExporter,
  EncodedSpanProcessor,
  type EncodedSpans,
  otlpEncodedSpanExporter,
} from './encoded-span-export.js';

/** The names of the spans in an encoded batch, decoded as the collector would its request. */
const batchNames = (batch: EncodedSpans) => decodeOtlpTraceRequest(batch.body).map((s) => s.name);

/**
 * An exporter that records the batches it is given. `hold`: `export` calls back only when the test
 * calls `release()`, so an export stays in flight until then.
 */
class RecordingExporter implements EncodedSpanExporter {
  readonly batches: EncodedSpans[] = [];
  private readonly pending: Array<() => void> = [];
  inFlight = 0;
  maxInFlight = 0;
  shutdowns = 0;

  constructor(private readonly hold = false) {}

  export(batch: EncodedSpans, done: (result: ExportResult) => void): void {
    this.batches.push(batch);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    const finish = () => {
      this.inFlight--;
      done({ code: ExportResultCode.SUCCESS });
    };
    if (this.hold) this.pending.push(finish);
    else finish();
  }

  /** Calls back the oldest export held, and lets the processor react to it. */
  async release(): Promise<void> {
    const finish = this.pending.shift();
    if (finish === undefined) throw new Error('no export in flight');
    finish();
    await nextTurn();
  }

  async shutdown(): Promise<void> {
    this.shutdowns++;
  }

  names(): string[][] {
    return this.batches.map(batchNames);
  }
}

const resource = resourceFromAttributes({ 'service.name': 'encoded-export-test' });

/** A provider whose only processor is `processor`. */
function providerWith(processor: EncodedSpanProcessor, sampler?: Sampler): NodeTracerProvider {
  return new NodeTracerProvider({ resource, sampler, spanProcessors: [processor] });
}

/** Starts and ends spans named `names` (each a root, or a child of `parent`). */
function endSpans(tracer: Tracer, names: string[], parent: Context = ROOT_CONTEXT): Span[] {
  return names.map((name) => {
    const span = tracer.startSpan(name, {}, parent);
    span.end();
    return span;
  });
}

/** Waits until `check` holds (polling each millisecond), or fails after `ms`. */
async function until(check: () => boolean, ms = 2000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`not so within ${ms} ms`);
    await sleep(1);
  }
}

const limits = (overrides: Partial<EncodedSpanBatchLimits>): EncodedSpanBatchLimits => ({
  maxExportBatchSize: 512,
  maxQueueSize: 2048,
  scheduledDelayMillis: 60_000,
  ...overrides,
});

describe('otlpEncodedSpanExporter: OTLP/HTTP protobuf to a collector', () => {
  interface Received {
    method: string | undefined;
    url: string | undefined;
    contentType: string | undefined;
    body: Buffer;
  }
  const received: Received[] = [];
  let server: Server;
  const savedEnv: Record<string, string | undefined> = {};

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        received.push({
          method: req.method,
          url: req.url,
          contentType: req.headers['content-type'],
          body: req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw,
        });
        // An empty ExportTraceServiceResponse: everything accepted.
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    // Only this test's endpoint: no other OTLP setting from the environment the tests run in.
    for (const name of Object.keys(process.env).filter((n) => n.startsWith('OTEL_EXPORTER_OTLP_'))) {
      savedEnv[name] = process.env[name];
      delete process.env[name];
    }
    if (!('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' in savedEnv)) savedEnv.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = undefined;
    const { port } = server.address() as AddressInfo;
    process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `http://127.0.0.1:${port}/v1/traces`;
  });
  afterAll(async () => {
    for (const [name, value] of Object.entries(savedEnv)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends a batch (spans ended in two turns) as one request that decodes to every span', async () => {
    const processor = new EncodedSpanProcessor(otlpEncodedSpanExporter(), limits({}));
    const provider = providerWith(processor);
    const tracer = provider.getTracer('test');

    const call = tracer.startSpan('call');
    const callContext = trace.setSpan(ROOT_CONTEXT, call);
    const [step] = endSpans(tracer, ['step'], callContext);
    call.end();
    await nextTurn();
    const [other] = endSpans(tracer, ['other-call']);
    const [otherStep] = endSpans(tracer, ['other-step'], trace.setSpan(ROOT_CONTEXT, other));
    await processor.forceFlush();

    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request).toMatchObject({ method: 'POST', url: '/v1/traces', contentType: 'application/x-protobuf' });
    const spans = decodeOtlpTraceRequest(request.body).map(({ service, name, traceId, spanId, parentSpanId }) => ({
      service,
      name,
      traceId,
      spanId,
      parentSpanId,
    }));
    const expected = (name: string, span: Span, parent?: Span) => ({
      service: 'encoded-export-test',
      name,
      traceId: span.spanContext().traceId,
      spanId: span.spanContext().spanId,
      parentSpanId: parent?.spanContext().spanId ?? '',
    });
    expect(spans).toEqual([
      expected('step', step, call),
      expected('call', call),
      expected('other-call', other),
      expected('other-step', otherStep, other),
    ]);
    expect(spans[0].traceId).toBe(spans[1].traceId);
    expect(spans[2].traceId).not.toBe(spans[0].traceId);

    await provider.shutdown();
    expect(received).toHaveLength(1);
  });
});

describe('EncodedSpanProcessor', () => {
  it('exports a full batch at once, even one filled over several turns, without waiting for the timer', async () => {
    const exporter = new RecordingExporter();
    const processor = new EncodedSpanProcessor(
      exporter,
      limits({ maxExportBatchSize: 3, scheduledDelayMillis: 60_000 }),
    );
    const provider = providerWith(processor);
    const tracer = provider.getTracer('test');

    endSpans(tracer, ['a1', 'a2']);
    expect(exporter.batches).toHaveLength(0); // two of three: waits
    endSpans(tracer, ['a3']);
    expect(exporter.names()).toEqual([['a1', 'a2', 'a3']]); // sent as the third span ends
    expect(exporter.batches[0]).toMatchObject({ spans: 3 });

    endSpans(tracer, ['b1', 'b2']);
    await nextTurn();
    expect(exporter.batches).toHaveLength(1);
    endSpans(tracer, ['b3', 'c1']);
    await nextTurn();
    expect(exporter.names()).toEqual([
      ['a1', 'a2', 'a3'],
      ['b1', 'b2', 'b3'],
    ]);
    expect(exporter.batches[1].spans).toBe(3);
    await provider.shutdown();
  });

  it('exports a partial batch after scheduledDelayMillis, or at once on forceFlush', async () => {
    const exporter = new RecordingExporter();
    const processor = new EncodedSpanProcessor(exporter, limits({ maxExportBatchSize: 10, scheduledDelayMillis: 50 }));
    const provider = providerWith(processor);
    const tracer = provider.getTracer('test');

    const start = performance.now();
    endSpans(tracer, ['p1', 'p2']);
    await nextTurn();
    endSpans(tracer, ['p3']);
    await sleep(20);
    expect(exporter.batches).toHaveLength(0);
    await until(() => exporter.batches.length > 0);
    // Timers may fire a millisecond early; the delay counts from the batch's first span.
    expect(performance.now() - start).toBeGreaterThanOrEqual(45);
    expect(exporter.names()).toEqual([['p1', 'p2', 'p3']]);

    const flushStart = performance.now();
    endSpans(tracer, ['f1']);
    await processor.forceFlush();
    expect(performance.now() - flushStart).toBeLessThan(45);
    expect(exporter.names()).toEqual([['p1', 'p2', 'p3'], ['f1']]);
    // Nothing left for the timer to send.
    await sleep(70);
    expect(exporter.batches).toHaveLength(2);
    await provider.shutdown();
  });

  it('drops a span it cannot encode without throwing from its end, and exports the others', async () => {
    const exporter = new RecordingExporter();
    const processor = new EncodedSpanProcessor(exporter, limits({}));
    const provider = providerWith(processor);
    const tracer = provider.getTracer('test');

    endSpans(tracer, ['before']);
    const broken = tracer.startSpan('broken');
    Object.defineProperty((broken as unknown as { attributes: object }).attributes, 'unreadable', {
      enumerable: true,
      get: () => {
        throw new Error('unreadable attribute');
      },
    });
    expect(() => broken.end()).not.toThrow();
    endSpans(tracer, ['after']);
    await processor.forceFlush();

    expect(exporter.names()).toEqual([['before', 'after']]);
    expect(exporter.batches[0].spans).toBe(2);
    await provider.shutdown();
  });

  it('never exports a span that is not sampled', async () => {
    const exporter = new RecordingExporter();
    const processor = new EncodedSpanProcessor(exporter, limits({}));
    // Kept, recorded but not sampled (onEnd is still called), or not recorded at all, by name.
    const byName: Sampler = {
      shouldSample: (_context, _traceId, name) => ({
        decision:
          name === 'kept'
            ? SamplingDecision.RECORD_AND_SAMPLED
            : name === 'recorded-only'
              ? SamplingDecision.RECORD
              : SamplingDecision.NOT_RECORD,
      }),
      toString: () => 'by name',
    };
    const providers = [
      providerWith(processor, byName),
      providerWith(processor, new AlwaysOffSampler()),
      providerWith(processor),
    ];
    const [named, never, parentBased] = providers.map((p) => p.getTracer('test'));
    const recordedOnly = named.startSpan('recorded-only');
    expect(recordedOnly.isRecording()).toBe(true);
    expect(recordedOnly.spanContext().traceFlags & TraceFlags.SAMPLED).toBe(0);
    recordedOnly.end();
    endSpans(named, ['kept', 'not-recorded']);
    endSpans(never, ['always-off']);
    const unsampledParent = trace.setSpan(
      ROOT_CONTEXT,
      trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 0 }),
    );
    endSpans(parentBased, ['child-of-unsampled'], unsampledParent);
    await nextTurn();
    await processor.forceFlush();

    expect(exporter.names()).toEqual([['kept']]);
    await Promise.all(providers.map((p) => p.shutdown()));
  });

  it('drops spans beyond maxQueueSize (the batch in flight counts) and exports the rest, one export at a time', async () => {
    const exporter = new RecordingExporter(true);
    const processor = new EncodedSpanProcessor(
      exporter,
      limits({ maxExportBatchSize: 2, maxQueueSize: 4, scheduledDelayMillis: 60_000 }),
    );
    const provider = providerWith(processor);
    const tracer = provider.getTracer('test');

    endSpans(tracer, ['a1', 'a2']);
    await nextTurn();
    expect(exporter.names()).toEqual([['a1', 'a2']]); // in flight, held
    endSpans(tracer, ['b1', 'b2']);
    await nextTurn();
    expect(exporter.batches).toHaveLength(1); // full, but waits for the one in flight
    endSpans(tracer, ['c1']); // 2 in flight + 2 waiting: full
    await nextTurn();

    await exporter.release();
    expect(exporter.names()).toEqual([
      ['a1', 'a2'],
      ['b1', 'b2'],
    ]);
    // b in flight: room for two more, not three.
    endSpans(tracer, ['d1', 'd2', 'd3']);
    await nextTurn();
    expect(exporter.batches).toHaveLength(2);

    await exporter.release();
    expect(exporter.batches).toHaveLength(3);
    const flushed = processor.forceFlush();
    await exporter.release();
    await flushed;

    expect(exporter.names()).toEqual([
      ['a1', 'a2'],
      ['b1', 'b2'],
      ['d1', 'd2'],
    ]);
    expect(exporter.maxInFlight).toBe(1);
    // Drained: the queue takes spans again.
    endSpans(tracer, ['e1']);
    const flushedAgain = processor.forceFlush();
    await exporter.release();
    await flushedAgain;
    expect(exporter.names().at(-1)).toEqual(['e1']);
    await provider.shutdown();
  });

  it('shutdown exports what is queued, shuts the exporter down once, and ignores spans ended after', async () => {
    const exporter = new RecordingExporter();
    const processor = new EncodedSpanProcessor(
      exporter,
      limits({ maxExportBatchSize: 10, scheduledDelayMillis: 60_000 }),
    );
    const provider = providerWith(processor);
    const tracer = provider.getTracer('test');

    endSpans(tracer, ['s1', 's2']);
    await nextTurn(); // waiting for the timer
    endSpans(tracer, ['s3']);
    await Promise.all([processor.shutdown(), processor.shutdown()]);

    expect(exporter.names()).toEqual([['s1', 's2', 's3']]);
    expect(exporter.shutdowns).toBe(1);

    endSpans(tracer, ['late']);
    await nextTurn();
    await processor.forceFlush();
    await provider.shutdown(); // shuts the processor down again
    expect(exporter.names()).toEqual([['s1', 's2', 's3']]);
    expect(exporter.shutdowns).toBe(1);
  });

  it('ignores a span that ends while shutdown is flushing', async () => {
    const exporter = new RecordingExporter(true);
    const processor = new EncodedSpanProcessor(
      exporter,
      limits({ maxExportBatchSize: 10, scheduledDelayMillis: 60_000 }),
    );
    const provider = providerWith(processor);
    const tracer = provider.getTracer('test');

    endSpans(tracer, ['queued']);
    const shutDown = processor.shutdown();
    expect(exporter.names()).toEqual([['queued']]); // in flight, held
    endSpans(tracer, ['during-shutdown']);
    await nextTurn();
    await exporter.release();
    // Settles with no other export to release (with the late span taken, it would wait for one).
    expect(await Promise.race([shutDown.then(() => 'shut down'), sleep(1000, 'still waiting')])).toBe('shut down');
    await sleep(10);

    expect(exporter.names()).toEqual([['queued']]);
    expect(exporter.shutdowns).toBe(1);
    await provider.shutdown();
  });
});
