import { useTracer } from '@appcat/ops';
import { propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { traceRequests } from '../http/request-spans.js';
import { sendEnvelopeWithJsonData } from './envelope.js';

describe('the envelope, in a sampled request', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let fastify: FastifyInstance;
  let url: string;
  let returned: { reply: FastifyReply; value: unknown } | undefined;

  beforeAll(async () => {
    provider.register({ contextManager: null });
    useTracer(provider.getTracer('test'));
    fastify = Fastify({ forceCloseConnections: true });
    traceRequests(fastify);
    fastify.get('/api/apps/:appId', async (_request, reply) => {
      returned = { reply, value: sendEnvelopeWithJsonData(reply, 200, 'ok', '{"id":1}') };
      return returned.value;
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

  // A reply is a thenable: the span's work once returned it, and the envelope returned what its `then`
  // did (nothing) after waiting for the response to finish.
  it('returns the reply itself, and its span ends with the send, a child of the request span', async () => {
    const response = await fetch(`${url}/api/apps/1`, {
      headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    });
    expect(await response.json()).toEqual({ status: 200, message: 'ok', data: { id: 1 } });
    expect(returned?.value).toBe(returned?.reply);
    for (let i = 0; i < 100 && exporter.getFinishedSpans().length < 2; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const spans = exporter.getFinishedSpans();
    const request = spans.find((span) => span.name === 'GET /api/apps/:appId');
    const envelope = spans.find((span) => span.name === 'gateway.envelope');
    expect(envelope?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
    expect(envelope?.attributes).toMatchObject({ 'http.response.status_code': 200, 'appcat.outcome': 'ok' });
  });
});
