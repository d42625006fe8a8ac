import { useTracer } from '@appcat/ops';
import { propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { sendEnvelopeWithJsonData } from '../envelope/envelope.js';
import { requestTrace, traceRequests } from './request-spans.js';

/*
 * The gateway passes trace context explicitly (no context manager, as main.ts starts it): a request's
 * span reaches its handling through `requestTrace`, the parent its spans and requests are given.
 */
describe('request spans, carried with the request', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let fastify: FastifyInstance;
  let url: string;
  let enveloped: { reply: FastifyReply; value: unknown } | undefined;

  beforeAll(async () => {
    provider.register({ contextManager: null });
    useTracer(provider.getTracer('test'));
    // A caller that gave up leaves its connection to be answered later: close it with the server.
    fastify = Fastify({ forceCloseConnections: true });
    traceRequests(fastify);
    // What the handling sees: the trace context it would give its spans, and whether any is active.
    fastify.get('/api/apps/:appId', async (request) => {
      const context = requestTrace(request);
      return {
        span: context && trace.getSpan(context)?.spanContext(),
        active: trace.getActiveSpan() !== undefined,
      };
    });
    // The envelope, as every answer is sent: what it returns is recorded.
    fastify.get('/api/envelope', async (_request, reply) => {
      enveloped = { reply, value: sendEnvelopeWithJsonData(reply, 200, 'ok', '{"id":1}') };
      return enveloped.value;
    });
    // Answers only after its caller has given up.
    fastify.get('/api/slow', async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return {};
    });
    url = await fastify.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await fastify.close();
    useTracer(undefined);
    await provider.shutdown();
    trace.disable();
    propagation.disable();
  });
  afterEach(() => exporter.reset());

  const callerTrace = '0af7651916cd43dd8448eb211c80319c';

  it("hands the request's span to its handling, a child of the caller's traceparent, with no context entered", async () => {
    const response = await fetch(`${url}/api/apps/1`, {
      headers: { traceparent: `00-${callerTrace}-b7ad6b7169203331-01` },
    });
    const seen = (await response.json()) as { span: { traceId: string; spanId: string }; active: boolean };
    // The span ends as the response closes, which may be just after the client read it.
    for (let i = 0; i < 100 && exporter.getFinishedSpans().length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const [span] = exporter.getFinishedSpans();
    expect(span.name).toBe('GET /api/apps/:appId');
    expect(span.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(seen).toMatchObject({ span: { traceId: callerTrace, spanId: span.spanContext().spanId }, active: false });
    expect(span.attributes).toMatchObject({ 'http.route': '/api/apps/:appId', 'appcat.outcome': 'ok' });
  });

  it("names a span by its request's method: a GET route's HEAD is its own", async () => {
    await fetch(`${url}/api/apps/1`, {
      method: 'HEAD',
      headers: { traceparent: `00-${callerTrace}-b7ad6b7169203331-01` },
    });
    for (let i = 0; i < 100 && exporter.getFinishedSpans().length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['HEAD /api/apps/:appId']);
  });

  it('a request not sampled has no trace context to hand on, and makes no span', async () => {
    const response = await fetch(`${url}/api/apps/1`, {
      headers: { traceparent: `00-${callerTrace}-b7ad6b7169203331-00` },
    });
    expect(await response.json()).toEqual({ active: false });
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  const finished = async (count: number) => {
    for (let i = 0; i < 100 && exporter.getFinishedSpans().length < count; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    return exporter.getFinishedSpans();
  };

  it('ends the span of a request whose caller went before the answer with 499, as no error of ours', async () => {
    await expect(
      fetch(`${url}/api/slow`, {
        headers: { traceparent: `00-${callerTrace}-b7ad6b7169203331-01` },
        signal: AbortSignal.timeout(50),
      }),
    ).rejects.toThrow();
    const [span] = await finished(1);
    expect(span.name).toBe('GET /api/slow');
    expect(span.attributes).toMatchObject({ 'http.response.status_code': 499, 'appcat.outcome': '499' });
    expect(span.status.code).not.toBe(2);
    // The answer written later to the closed socket ends nothing twice.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(exporter.getFinishedSpans()).toHaveLength(1);
  });
  // A reply is a thenable: the envelope span's work once returned it, so the span waited for the
  // response to finish and the envelope returned what its `then` did (nothing).
  it("returns the reply itself from the envelope, whose span ends with the send, a child of the request's", async () => {
    const response = await fetch(`${url}/api/envelope`, {
      headers: { traceparent: `00-${callerTrace}-b7ad6b7169203331-01` },
    });
    expect(await response.json()).toEqual({ status: 200, message: 'ok', data: { id: 1 } });
    expect(enveloped?.value).toBe(enveloped?.reply);
    const spans = await finished(2);
    const request = spans.find((span) => span.name === 'GET /api/envelope');
    const envelope = spans.find((span) => span.name === 'gateway.envelope');
    expect(envelope?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
    expect(envelope?.attributes).toMatchObject({ 'http.response.status_code': 200, 'appcat.outcome': 'ok' });
  });
});
