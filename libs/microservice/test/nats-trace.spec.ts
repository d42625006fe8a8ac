import {
  type BatchReply,
  type BatchRequest,
  type CatalogPeekReply,
  type CatalogRequest,
  ErrorCode,
  QueueGroup,
  Subject,
} from '@appcat/contracts';
import { attachedContext, contextWithSpan, OUTCOME, startSpan, useTracer, withSpan } from '@appcat/ops';
import { jest } from '@jest/globals';
import { Controller, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { context, propagation, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { StackContextManager } from '@opentelemetry/sdk-trace';
import type { MsgHdrs } from '@nats-io/transport-node';
import { NatsRpcClient, type RpcCallError } from '../src/nats-rpc-client.js';
import { batchItemCarriers, inBatchItemContext, inRequestTrace } from '../src/nats-trace.js';
import { TypedRpc } from '../src/typed-rpc.js';
import { WireException } from '../src/wire-exception.js';
import { type StandInService, startStandInService } from './support/stand-in-service.js';

/** A peek reads "the cache" in a span of its own; the route "apps.similar" fails. */
function peekAnswer(request: CatalogRequest): CatalogPeekReply {
  return withSpan('cache read', { route: request.query.route }, () => {
    if (request.query.route === 'apps.similar') throw new WireException(ErrorCode.UpstreamHttpError, 'no');
    return { dataJson: '{}', source: 'cache' };
  });
}

/** The payloads handled, and whether each carried its trace context while it was handled. */
const handled: Array<{ payload: object; traced: boolean }> = [];

@Controller()
class StandInController {
  @MessagePattern(Subject.CatalogPeek, { queue: QueueGroup.Catalog })
  peek(@Payload() request: CatalogRequest): CatalogPeekReply {
    handled.push({ payload: request, traced: attachedContext(request) !== undefined });
    return inRequestTrace(request, () => peekAnswer(request));
  }

  @MessagePattern(Subject.CatalogPeekBatch, { queue: QueueGroup.Catalog })
  peekBatch(@Payload() request: BatchRequest<CatalogRequest>): BatchReply<CatalogPeekReply> {
    handled.push({ payload: request, traced: attachedContext(request) !== undefined });
    return {
      results: request.items.map((item, index) =>
        inBatchItemContext(request, index, () => {
          try {
            return { ok: true, value: peekAnswer(item) };
          } catch (error) {
            return { ok: false, error: (error as WireException).getError() as { code: ErrorCode; message: string } };
          }
        }),
      ),
    };
  }
}

@Module({ controllers: [StandInController] })
class StandInModule {}

const peek = (route: 'apps.get' | 'apps.similar' = 'apps.get'): CatalogRequest => ({
  query: { route, appId: '1', country: 'us' },
  requestId: 'r',
});

describe('trace context through TypedRpc and the NATS server, alone and in batches', () => {
  let standIn: StandInService;
  let client: NatsRpcClient;
  let rpc: TypedRpc<RpcCallError>;
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const sentHeaders: Array<MsgHdrs | undefined> = [];

  beforeAll(async () => {
    // As the services trace: the context is active only while synchronous code runs (libs/ops tracing.ts).
    provider.register({ contextManager: new StackContextManager() });
    useTracer(provider.getTracer('test'));
    standIn = await startStandInService(StandInModule);
    client = await NatsRpcClient.connect(standIn.config, 'trace-test');
    const publish = client.connection.publish.bind(client.connection);
    jest.spyOn(client.connection, 'publish').mockImplementation((subject, data, options) => {
      sentHeaders.push(options?.headers);
      publish(subject, data, options);
    });
    rpc = new TypedRpc(client, (error: RpcCallError) => error, { batchMaxItems: 64 });
  });

  afterEach(() => {
    exporter.reset();
    sentHeaders.length = 0;
    handled.length = 0;
  });

  afterAll(async () => {
    await client.close();
    await standIn.stop();
    useTracer(undefined);
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  /** The finished spans once there are `count` (the service ends its span as it replies). */
  async function spans(count: number): Promise<ReadableSpan[]> {
    for (let i = 0; i < 200 && exporter.getFinishedSpans().length < count; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    return exporter.getFinishedSpans();
  }
  const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
  const idOf = (span: ReadableSpan) => span.spanContext().spanId;

  /**
   * The spans of `call`'s trace, checked to be one chain: its request's client span, the service's span
   * and the cache read, each the child of the one before.
   */
  function requestSpans(all: ReadableSpan[], call: Pick<ReadableSpan, 'spanContext'>) {
    const ours = all.filter((s) => s.spanContext().traceId === call.spanContext().traceId);
    const client = ours.find((s) => s.kind === SpanKind.CLIENT)!;
    const server = ours.find((s) => s.kind === SpanKind.SERVER)!;
    const read = ours.find((s) => s.name === 'cache read')!;
    expect(ours).toHaveLength(4);
    expect(parentOf(client)).toBe(call.spanContext().spanId);
    expect(parentOf(server)).toBe(idOf(client));
    expect(parentOf(read)).toBe(idOf(server));
    return { client, server };
  }

  it('a payload carries its trace context while it is handled, and not after: nothing keeps its spans alive', async () => {
    await withSpan('call', {}, () => rpc.result(Subject.CatalogPeek, peek()), { root: true });
    await withSpan('batch', {}, () => Promise.all([0, 1].map(() => rpc.result(Subject.CatalogPeek, peek()))), {
      root: true,
    });
    expect(handled.map((seen) => seen.traced)).toEqual([true, true]);
    for (const { payload } of handled) expect(attachedContext(payload)).toBeUndefined();
  });

  it("a lone request: the caller's span and the service's, in the caller's trace", async () => {
    const answer = await withSpan('call', {}, () => rpc.result(Subject.CatalogPeek, peek()), { root: true });
    expect(answer.ok).toBe(true);
    const all = await spans(4);
    const [call] = all.filter((s) => s.name === 'call');
    const client = all.find((s) => s.name === Subject.CatalogPeek && s.kind === SpanKind.CLIENT)!;
    const server = all.find((s) => s.name === Subject.CatalogPeek && s.kind === SpanKind.SERVER)!;
    const read = all.find((s) => s.name === 'cache read')!;
    expect(new Set(all.map((s) => s.spanContext().traceId))).toEqual(new Set([call.spanContext().traceId]));
    expect(parentOf(client)).toBe(idOf(call));
    expect(parentOf(server)).toBe(idOf(client));
    expect(parentOf(read)).toBe(idOf(server));
    expect(client.attributes).toMatchObject({ 'messaging.system': 'nats', [OUTCOME]: 'ok' });
    expect(server.attributes).toMatchObject({ 'messaging.destination.name': Subject.CatalogPeek, [OUTCOME]: 'ok' });
    expect(sentHeaders[0]?.get('traceparent')).toContain(client.spanContext().spanId);
  });

  it('a batch: each item its own spans in its own trace, with its own outcome', async () => {
    const routes = ['apps.get', 'apps.similar', 'apps.get'] as const;
    const answers = await Promise.all(
      routes.map((route, index) =>
        withSpan(`call ${index}`, {}, () => rpc.result(Subject.CatalogPeek, peek(route)), { root: true }),
      ),
    );
    expect(answers.map((a) => a.ok)).toEqual([true, false, true]);
    expect(sentHeaders).toHaveLength(1);
    // The batch message itself belongs to no one call's trace.
    expect(sentHeaders[0]?.get('traceparent')).toBe('');
    const all = await spans(12);
    routes.forEach((route, index) => {
      const [call] = all.filter((s) => s.name === `call ${index}`);
      const { client, server } = requestSpans(all, call);
      expect(server.name).toBe(Subject.CatalogPeek);
      expect(server.attributes).toMatchObject({ 'appcat.batch.size': 3, 'appcat.batch.index': index });
      const outcome = route === 'apps.similar' ? ErrorCode.UpstreamHttpError : 'ok';
      expect(client.attributes[OUTCOME]).toBe(outcome);
      expect(server.attributes[OUTCOME]).toBe(outcome);
    });
  });

  it('a parent given explicitly (the gateway keeps no async context): alone and in a batch, in its trace', async () => {
    // Each call's span is never entered: only the `trace` option says where each request belongs,
    // and an unrelated active context must not leak into any of them.
    const calls = [0, 1, 2].map((index) => startSpan(`call ${index}`, {}, { root: true })!);
    const elsewhere = startSpan('elsewhere', {}, { root: true })!;
    const answers = await context.with(trace.setSpan(context.active(), elsewhere), async () => {
      const alone = await rpc.result(Subject.CatalogPeek, peek(), { trace: contextWithSpan(calls[0]) });
      const batched = await Promise.all(
        calls
          .slice(1)
          .map((call) => rpc.result(Subject.CatalogPeek, peek(), { trace: contextWithSpan(call, ROOT_CONTEXT) })),
      );
      return [alone, ...batched];
    });
    for (const span of [...calls, elsewhere]) span.end();
    expect(answers.map((a) => a.ok)).toEqual([true, true, true]);
    expect(sentHeaders).toHaveLength(2);
    const all = await spans(13);
    for (const call of calls) requestSpans(all, call);
    expect(all.filter((s) => s.spanContext().traceId === elsewhere.spanContext().traceId)).toHaveLength(1);
    const alone = all.find(
      (s) => s.kind === SpanKind.CLIENT && s.spanContext().traceId === calls[0].spanContext().traceId,
    )!;
    expect(sentHeaders[0]?.get('traceparent')).toContain(idOf(alone));
    expect(sentHeaders[1]?.get('traceparent')).toBe('');
  });

  it('a batch of sampled and unsampled calls: spans for the sampled ones only, and only they in its header', async () => {
    const unsampled = trace.setSpan(
      ROOT_CONTEXT,
      trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 0 }),
    );
    const sampled = [0, 1].map((index) => startSpan(`call ${index}`, {}, { root: true })!);
    const answers = await Promise.all([
      rpc.result(Subject.CatalogPeek, peek(), { trace: unsampled }),
      rpc.result(Subject.CatalogPeek, peek('apps.similar'), { trace: contextWithSpan(sampled[0], ROOT_CONTEXT) }),
      rpc.result(Subject.CatalogPeek, peek(), { trace: unsampled }),
      rpc.result(Subject.CatalogPeek, peek(), { trace: contextWithSpan(sampled[1], ROOT_CONTEXT) }),
    ]);
    for (const span of sampled) span.end();
    expect(answers.map((a) => a.ok)).toEqual([true, false, true, true]);
    expect(sentHeaders).toHaveLength(1);
    const header = batchItemCarriers(sentHeaders[0]!)!;
    expect(header.size).toBe(4);
    expect(header.traced.map(([index]) => index)).toEqual([1, 3]);
    const all = await spans(10);
    expect(all).toHaveLength(8);
    sampled.forEach((call, i) => {
      const index = [1, 3][i];
      const { server } = requestSpans(all, call);
      expect(server.attributes).toMatchObject({ 'appcat.batch.size': 4, 'appcat.batch.index': index });
      expect(server.attributes[OUTCOME]).toBe(i === 0 ? ErrorCode.UpstreamHttpError : 'ok');
    });
  });

  it('a call whose trace is not sampled: no span and no trace context on either side', async () => {
    const unsampled = trace.wrapSpanContext({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 0,
    });
    await context.with(trace.setSpan(context.active(), unsampled), async () => {
      await rpc.result(Subject.CatalogPeek, peek());
      await Promise.all([rpc.result(Subject.CatalogPeek, peek()), rpc.result(Subject.CatalogPeek, peek())]);
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(exporter.getFinishedSpans()).toEqual([]);
    // The service traces only calls that carry a sampled context: it does not sample these on its own.
    expect(sentHeaders.map((headers) => headers?.get('traceparent') ?? '')).toEqual(['', '']);
    expect(sentHeaders[1]?.get('appcat-batch-item-trace') ?? '').toBe('');
  });

  it('a request outside any trace (an admin command) starts no trace in the service', async () => {
    // The provider samples every trace: a span here would be the service sampling the call on its own.
    await rpc.result(Subject.CatalogPeek, peek());
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('with tracing off, no span and no trace header', async () => {
    useTracer(undefined);
    try {
      await withSpan('call', {}, () => rpc.result(Subject.CatalogPeek, peek()), { root: true });
      await Promise.all([rpc.result(Subject.CatalogPeek, peek()), rpc.result(Subject.CatalogPeek, peek())]);
    } finally {
      useTracer(provider.getTracer('test'));
    }
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(sentHeaders.map((headers) => headers?.get('traceparent') ?? '')).toEqual(['', '']);
  });
});
