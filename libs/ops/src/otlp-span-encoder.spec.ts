import {
  type Attributes,
  type HrTime,
  ROOT_CONTEXT,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
} from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer/build/src/trace/protobuf/index.js';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeTracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OtlpSpanBatchEncoder } from './otlp-span-encoder.js';
import { decodeOtlpTraceRequest } from '@appcat/testing';

/** The spans a provider ends, as the processor is given them. */
function recordingProvider(resource = resourceFromAttributes({ 'service.name': 'encoder-test', 'host.name': 'vm' })) {
  const ended: ReadableSpan[] = [];
  const processor: SpanProcessor = {
    onStart: () => undefined,
    onEnd: (span) => void ended.push(span),
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
  };
  return { provider: new NodeTracerProvider({ resource, spanProcessors: [processor] }), ended };
}

/** What the encoder makes of `spans` added in order, as one request. */
function encode(spans: ReadableSpan[], encoder = new OtlpSpanBatchEncoder()): Buffer {
  for (const span of spans) encoder.add(span);
  expect(encoder.spans).toBe(spans.length);
  const body = encoder.finish()!;
  expect(encoder.spans).toBe(0);
  return body;
}

/** The SDK's own encoding of the same spans. */
const serialized = (spans: ReadableSpan[]) => Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!);

const remoteParent: SpanContext = {
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'B7AD6B7169203331', // upper case hex, as a peer may send it
  traceFlags: TraceFlags.SAMPLED,
  isRemote: true,
  traceState: new TraceState('vendor=a1b2,other=x'),
};

/** Every attribute type the SDK keeps, ASCII and not, small and past one byte of length. */
const attributes: Attributes = {
  'appcat.route': '/api/apps/:appId',
  'appcat.empty': '',
  'appcat.city': 'Zürich ✓ 🚀',
  'appcat.lone_surrogate': 'a\ud800b',
  'appcat.ok': true,
  'appcat.no': false,
  'appcat.count': 42,
  'appcat.negative': -7,
  'appcat.big': 2 ** 53,
  'appcat.huge': 2 ** 62,
  'appcat.ratio': 0.1,
  'appcat.tiny': -1e-300,
  'appcat.names': ['a', 'ß', ''],
  'appcat.numbers': [1, -2, 3.5],
  'appcat.flags': [true, false],
  'appcat.long': 'x'.repeat(300),
  ключ: 'значение',
};

describe('OtlpSpanBatchEncoder: the SDK serializer’s bytes, span by span', () => {
  it('encodes real spans of every kind, status, event and link exactly as ProtobufTraceSerializer does', async () => {
    const { provider, ended } = recordingProvider();
    const tracer = provider.getTracer('appcat');
    const root = tracer.startSpan('GET /api/apps/:appId', { kind: SpanKind.SERVER, attributes });
    const rootContext = trace.setSpan(ROOT_CONTEXT, root);
    for (const kind of [SpanKind.INTERNAL, SpanKind.CLIENT, SpanKind.PRODUCER, SpanKind.CONSUMER]) {
      const step = tracer.startSpan(`step ${kind}`, { kind, attributes: { 'appcat.kind': kind } }, rootContext);
      step.setStatus({ code: kind % 2 === 0 ? SpanStatusCode.OK : SpanStatusCode.ERROR, message: `status ${kind}` });
      step.end();
    }
    const withEvents = tracer.startSpan(
      'with events and links',
      {
        links: [{ context: remoteParent, attributes: { 'link.n': 1 } }, { context: root.spanContext() }],
      },
      trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext(remoteParent)),
    );
    withEvents.addEvent('retry', { 'appcat.attempt': 2, 'appcat.why': 'früh' });
    withEvents.addEvent('plain');
    withEvents.recordException(new Error('boom'));
    withEvents.setStatus({ code: SpanStatusCode.ERROR });
    withEvents.end();
    // A span whose message is under 128 bytes, one whose message needs three bytes of length.
    tracer.startSpan('s', {}, ROOT_CONTEXT).end();
    tracer.startSpan('big', { attributes: { 'appcat.blob': 'y'.repeat(20_000) } }).end();
    root.end();
    await provider.shutdown();

    expect(ended).toHaveLength(8);
    expect(encode(ended).equals(serialized(ended))).toBe(true);
  });

  it('keeps every scope and resource apart, in the order each first appears, as the serializer groups them', async () => {
    const first = recordingProvider();
    const second = recordingProvider(
      resourceFromAttributes({ 'service.name': 'second' }, { schemaUrl: 'https://opentelemetry.io/schemas/1.30.0' }),
    );
    const appcat = first.provider.getTracer('appcat');
    const redis = first.provider.getTracer('@opentelemetry/instrumentation-ioredis', '0.50.0', {
      schemaUrl: 'https://opentelemetry.io/schemas/1.27.0',
    });
    const other = second.provider.getTracer('other');
    const spans: ReadableSpan[] = [];
    const end = (tracer: typeof appcat, name: string, from: ReadableSpan[]) => {
      tracer.startSpan(name).end();
      spans.push(from.at(-1)!);
    };
    end(appcat, 'a1', first.ended);
    end(redis, 'evalsha', first.ended);
    end(other, 'o1', second.ended);
    end(appcat, 'a2', first.ended);
    end(redis, 'get', first.ended);
    end(other, 'o2', second.ended);

    expect(encode(spans).equals(serialized(spans))).toBe(true);
    // Read back as a collector would: resources, then scopes, in order of first appearance.
    expect(decodeNames(encode(spans))).toEqual([
      ['encoder-test', 'appcat', ['a1', 'a2']],
      ['encoder-test', '@opentelemetry/instrumentation-ioredis', ['evalsha', 'get']],
      ['second', 'other', ['o1', 'o2']],
    ]);
    await Promise.all([first.provider.shutdown(), second.provider.shutdown()]);
  });

  it('starts each batch afresh in the same buffers', async () => {
    const { provider, ended } = recordingProvider();
    const appcat = provider.getTracer('appcat');
    const redis = provider.getTracer('ioredis');
    const encoder = new OtlpSpanBatchEncoder();
    for (let batch = 0; batch < 3; batch++) {
      const from = ended.length;
      for (let i = 0; i < 200; i++) (i % 3 === 0 ? redis : appcat).startSpan(`b${batch} s${i}`).end();
      // Only the second batch has a span of its own scope: later batches leave that scope out.
      if (batch === 1) provider.getTracer('once').startSpan('b1 once').end();
      const spans = ended.slice(from);
      expect(encode(spans, encoder).equals(serialized(spans))).toBe(true);
    }
    expect(encoder.finish()).toBeUndefined();
    await provider.shutdown();
  });

  it('keeps the bytes exact while strings and attributes that repeat mix with more that never do', async () => {
    // Past the caches' size (1,024), so they are emptied and refilled mid-batch, more than once.
    const { provider, ended } = recordingProvider();
    const tracer = provider.getTracer('appcat');
    for (let i = 0; i < 3000; i++) {
      tracer
        .startSpan(i % 2 === 0 ? 'payments.credits.debit' : `unique ${i}`, {
          attributes: {
            'appcat.outcome': i % 5 === 0 ? 'CREDIT_EXHAUSTED' : 'ok',
            // Short ids are cached (and overflow the caches), UUID-long ones are not.
            'appcat.request_id': i % 2 === 0 ? `r-${i}-ü` : `0e6f1c2a-8d4b-4e5f-9a7b-${String(i).padStart(12, '0')}`,
            'appcat.batch.index': i % 70_000,
            [`appcat.key.${i % 1500}`]: i % 3 === 0,
          },
        })
        .end();
    }
    expect(encode(ended).equals(serialized(ended))).toBe(true);
    await provider.shutdown();
  });

  it('writes values the SDK would not make as the serializer does: maps, bytes, nulls, far times', () => {
    const { provider } = recordingProvider();
    const base = provider.getTracer('appcat').startSpan('template') as unknown as ReadableSpan;
    const far: HrTime = [4_102_444_800, 999_999_999]; // 2100-01-01, the last nanosecond of its second
    const span = handmade(base, {
      name: 'handmade',
      startTime: [0, 1],
      endTime: far,
      attributes: {
        map: { inner: 'v', deeper: { n: 1, list: [null, 'x'] } },
        bytes: new Uint8Array([0, 1, 255]),
        nothing: null,
        missing: undefined,
        nested: [[1, 2], { k: 'v' }],
      } as unknown as Attributes,
      droppedAttributesCount: 3,
      droppedEventsCount: 200,
      droppedLinksCount: 70_000,
    });
    expect(encode([span]).equals(serialized([span]))).toBe(true);
  });

  it('leaves a span that cannot be encoded out of its batch, and the batch whole', () => {
    const { provider } = recordingProvider();
    const tracer = provider.getTracer('appcat');
    const good = tracer.startSpan('good') as unknown as ReadableSpan;
    const attributesThatThrow = {
      ok: 'first',
      get broken(): string {
        throw new Error('unreadable');
      },
    };
    const bad = handmade(good, { name: 'bad', attributes: attributesThatThrow as unknown as Attributes });
    const encoder = new OtlpSpanBatchEncoder();
    encoder.add(good);
    expect(() => encoder.add(bad)).toThrow('unreadable');
    expect(encoder.spans).toBe(1);
    encoder.add(good);
    expect(encoder.finish()!.equals(serialized([good, good]))).toBe(true);
  });
});

/** A ReadableSpan with `base`'s context, resource and scope and the fields given. */
function handmade(base: ReadableSpan, fields: Partial<ReadableSpan>): ReadableSpan {
  return {
    spanContext: () => base.spanContext(),
    kind: SpanKind.INTERNAL,
    parentSpanContext: undefined,
    startTime: [1_764_000_000, 5],
    endTime: [1_764_000_001, 6],
    status: { code: SpanStatusCode.UNSET },
    attributes: {},
    links: [],
    events: [],
    duration: [1, 1],
    ended: true,
    resource: base.resource,
    instrumentationScope: base.instrumentationScope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    name: 'handmade',
    ...fields,
  };
}

/** [service, scope, span names] per run of spans from one resource and scope, as a collector reads them. */
function decodeNames(body: Uint8Array): Array<[string | undefined, string, string[]]> {
  const groups: Array<[string | undefined, string, string[]]> = [];
  for (const span of decodeOtlpTraceRequest(body)) {
    const last = groups.at(-1);
    if (last && last[0] === span.service && last[1] === span.scope) last[2].push(span.name);
    else groups.push([span.service, span.scope, [span.name]]);
  }
  return groups;
}
