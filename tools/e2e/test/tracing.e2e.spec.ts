/*
 * Traces end to end: the built services as real processes with tracing on (OTEL_EXPORTER_OTLP_ENDPOINT
 * pointing at a receiver in this test, OTLP/HTTP protobuf as deployed, every trace sampled). One credit-paid call and
 * one x402-paid call each make one trace that the gateway, payments and the catalog all add to, with
 * the spans an operator looks for, and no key, key hash or payment payload in any attribute.
 */
import { type AdminKeyCreated, hashApiKey, parseUsd, Subject } from '@appcat/contracts';
import { type LocalPaymentStack, startLocalPaymentStack } from '@appcat/facilitator';
import { NatsRpcClient } from '@appcat/microservice';
import { applyMigrations } from '@appcat/payments';
import { startStoreEmulator, type StoreEmulator } from '@appcat/store-emulator';
import {
  createTestDatabase,
  freePort,
  type ManagedProcess,
  startNatsServer,
  startRedisServer,
  type TestDatabase,
} from '@appcat/testing';
import { jest } from '@jest/globals';
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';
import { type ReceivedSpan, OtlpReceiver } from './support/otlp-receiver.js';
import { ServiceProcess, waitReady } from './support/service-processes.js';

jest.setTimeout(180_000);

/**
 * The steps of a call each service shows as a span of its own, by rail. The gateway's hold and capture
 * are its requests to payments, named by subject.
 */
const STEPS: Record<'credits' | 'x402', Array<[service: string, span: string]>> = {
  credits: [
    ['gateway', 'gateway.validate'],
    ['gateway', 'payments.credits.reserve'],
    ['gateway', 'payments.credits.capture'],
    ['gateway', 'gateway.envelope'],
    ['catalog', 'catalog.cache.read'],
    ['catalog', 'catalog.upstream.source'],
    ['catalog', 'catalog.upstream.request'],
  ],
  x402: [
    ['gateway', 'gateway.validate'],
    ['gateway', 'payments.x402.authorize'],
    ['gateway', 'payments.x402.settle'],
    ['gateway', 'gateway.envelope'],
    ['payments', 'x402.check'],
    ['payments', 'x402.settle'],
    ['payments', 'x402.facilitator'],
    ['catalog', 'catalog.cache.read'],
    ['catalog', 'catalog.upstream.source'],
    ['catalog', 'catalog.upstream.request'],
  ],
};

const SERVER = 2;
const CLIENT = 3;

/** A W3C traceparent for a trace of our own, so the test knows which trace a call made. */
function traceparent(): { traceId: string; header: string } {
  const hex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');
  const traceId = hex(16);
  return { traceId, header: `00-${traceId}-${hex(8)}-01` };
}

describe('one trace per call across gateway, payments and catalog', () => {
  let nats: ManagedProcess;
  let redis: ManagedProcess;
  let database: TestDatabase;
  let emulator: StoreEmulator;
  let stack: LocalPaymentStack;
  let receiver: OtlpReceiver;
  let admin: NatsRpcClient;
  let gatewayUrl: string;
  const services: ServiceProcess[] = [];

  beforeAll(async () => {
    [nats, redis, database, emulator] = await Promise.all([
      startNatsServer(),
      startRedisServer(),
      createTestDatabase('e2e_tracing', applyMigrations),
      startStoreEmulator({ port: 0 }),
    ]);
    receiver = await OtlpReceiver.start();
    stack = await startLocalPaymentStack({ networks: ['base'] });
    const common = {
      ...stack.paymentsEnv,
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      DATABASE_URL: database.url,
      ITUNES_BASE_URL: emulator.url,
      APPLE_WEB_BASE_URL: emulator.url,
      APPLE_AMP_API_BASE_URL: emulator.url,
      ITUNES_RATE_PER_MIN: '0',
      APPLE_WEB_RATE_PER_MIN: '0',
      APPLE_AMP_API_RATE_PER_MIN: '0',
      NATS_REQUEST_TIMEOUT_MS: '30000',
      UPSTREAM_TIMEOUT_MS: '30000',
      LEDGER_BLOCK_MS: '100',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    const readiness: string[] = [];
    for (const kind of ['payments', 'catalog'] as const) {
      const opsPort = await freePort();
      services.push(new ServiceProcess(kind, `apps/${kind}/dist/main.js`, { ...common, OPS_PORT: String(opsPort) }));
      readiness.push(`http://127.0.0.1:${opsPort}/readyz`);
    }
    const port = await freePort();
    gatewayUrl = `http://127.0.0.1:${port}`;
    services.push(
      new ServiceProcess('gateway', 'apps/gateway/dist/main.js', {
        ...common,
        PORT: String(port),
        PUBLIC_BASE_URL: gatewayUrl,
        OPS_PORT: '0',
      }),
    );
    readiness.push(`${gatewayUrl}/readyz`);
    try {
      await Promise.all(readiness.map((url) => waitReady(url, 60_000)));
    } catch (error) {
      const output = services.map((s) => `${s.name}: ${s.output.join('')}`).join('\n');
      throw new Error(`${String(error)}\n${output}`, { cause: error });
    }
    admin = await NatsRpcClient.connect(
      { servers: [nats.url], requestTimeoutMs: 30_000, shutdownGraceMs: 0 },
      'e2e-admin',
    );
  }, 180_000);

  afterAll(async () => {
    await admin?.close();
    for (const service of services) await service.kill();
    await receiver?.close();
    await emulator?.close();
    await stack?.stop();
    await Promise.all([nats?.stop(), redis?.stop()]);
    await database?.drop();
  });

  /** `path` fetched within a trace of our own; the answer and that trace's spans once `expected` are in. */
  async function tracedCall(
    path: string,
    headers: Record<string, string>,
    expected: (spans: ReceivedSpan[]) => boolean,
  ) {
    const { traceId, header } = traceparent();
    const res = await fetch(gatewayUrl + path, { headers: { ...headers, traceparent: header } });
    const body = (await res.json()) as { status: number; message: string };
    const spans = await receiver.trace(traceId, expected);
    return { status: res.status, body, spans, requestId: res.headers.get('x-request-id') };
  }

  /** Whether `spans` hold one named `name` from `service` (of `kind`, when given). */
  const has = (spans: ReceivedSpan[], service: string, name: string, kind?: number) =>
    spans.some((s) => s.service === service && s.name === name && (kind === undefined || s.kind === kind));

  /** Each span's parent is in the trace, except the gateway's request span, whose parent is the caller's. */
  function expectOneTree(spans: ReceivedSpan[], route: string): void {
    const ids = new Set(spans.map((s) => s.spanId));
    const roots = spans.filter((s) => !ids.has(s.parentSpanId));
    expect(roots.map((s) => `${s.service} ${s.name}`)).toEqual([`gateway GET ${route}`]);
  }

  /** No attribute holds `secrets` (a key, its hash, a payment payload). */
  function expectNoSecrets(spans: ReceivedSpan[], secrets: string[]): void {
    const text = JSON.stringify(spans.map((s) => s.attributes));
    for (const secret of secrets) expect(text).not.toContain(secret);
  }

  it('a credit-paid call: one trace through the gateway, payments and the catalog', async () => {
    const created = await admin.request<AdminKeyCreated>(
      Subject.AdminKeysCreate,
      { credit: parseUsd('1')!.toString() },
      { service: 'payments' },
    );
    const expected = (spans: ReceivedSpan[]) =>
      has(spans, 'gateway', 'GET /api/apps/:appId', SERVER) &&
      // The hold and its capture (payments.credits.*), on both sides of NATS.
      spans.some((s) => s.service === 'gateway' && s.kind === CLIENT && s.name.startsWith('payments.credits.')) &&
      spans.some((s) => s.service === 'payments' && s.kind === SERVER && s.name.startsWith('payments.credits.')) &&
      has(spans, 'catalog', Subject.CatalogPeek, SERVER) &&
      has(spans, 'catalog', Subject.CatalogFetch, SERVER) &&
      STEPS.credits.every(([service, name]) => has(spans, service, name));
    const call = await tracedCall(
      '/api/apps/284882215',
      { authorization: `Bearer ${created.key}`, 'x-request-id': 'trace-e2e-credits' },
      expected,
    );
    expect(call.status).toBe(200);
    const { spans } = call;
    expect(expected(spans)).toBe(true);
    expectOneTree(spans, '/api/apps/:appId');
    const http = spans.find((s) => s.service === 'gateway' && s.kind === SERVER)!;
    expect(http.attributes).toMatchObject({
      'http.route': '/api/apps/:appId',
      'appcat.request_id': 'trace-e2e-credits',
    });
    const debit = spans.find((s) => s.service === 'payments' && s.name.startsWith('payments.credits.'))!;
    expect(debit.attributes).toMatchObject({ 'appcat.outcome': 'ok', 'appcat.request_id': 'trace-e2e-credits' });
    // Redis behind the debit and the cache read (neither connection auto-pipelines, which would send a
    // command a turn after its caller, outside its context), and the upstream request behind the fetch,
    // from the instrumentations.
    // Each under its instrumentation's own scope (our recorder makes every span, theirs too), ours under `appcat`.
    for (const service of ['payments', 'catalog']) {
      const redisSpans = spans.filter((s) => s.service === service && s.attributes['db.system.name'] === 'redis');
      expect(redisSpans.length).toBeGreaterThan(0);
      for (const span of redisSpans) expect(span.scope).toBe('@opentelemetry/instrumentation-ioredis');
    }
    expect(debit.scope).toBe('appcat');
    expect(spans.some((s) => s.service === 'catalog' && s.kind === CLIENT && 'url.full' in s.attributes)).toBe(true);
    const cacheReads = spans.filter((s) => s.name === 'catalog.cache.read');
    expect(cacheReads.map((s) => s.attributes['appcat.outcome'])).toEqual(expect.arrayContaining(['miss', 'upstream']));
    expectNoSecrets(spans, [created.key, hashApiKey(created.key)]);

    // The debit reaches Postgres in a flush of the ledger, a trace of its own with its one Postgres statement in it.
    const flushes = () => receiver.spans.filter((s) => s.service === 'payments' && s.name === 'ledger.flush');
    for (let i = 0; i < 600 && flushes().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    const [flush] = flushes();
    expect(flush.attributes).toMatchObject({ 'appcat.ledger.entries': 1, 'appcat.outcome': 'ok' });
    const flushTrace = await receiver.trace(flush.traceId, (all) =>
      all.some((s) => s.name.startsWith('pg.query:WITH')),
    );
    expect(flushTrace.some((s) => s.name.startsWith('pg.query:WITH'))).toBe(true);
  });

  it('an x402-paid call: one trace through the gateway, payments (and its facilitator request) and the catalog', async () => {
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: privateKeyToAccount(stack.evmPayerKey) });
    const path = '/api/apps/284882216';
    const unpaid = await fetch(gatewayUrl + path);
    const payload = await client.createPaymentPayload(
      decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!),
    );
    const signature = encodePaymentSignatureHeader(payload);
    const expected = (spans: ReceivedSpan[]) =>
      has(spans, 'gateway', 'GET /api/apps/:appId', SERVER) &&
      // The payment's requests to payments (payments.x402.*), on both sides of NATS.
      spans.some((s) => s.service === 'gateway' && s.kind === CLIENT && s.name.startsWith('payments.x402.')) &&
      spans.some((s) => s.service === 'payments' && s.kind === SERVER && s.name.startsWith('payments.x402.')) &&
      spans.some(
        (s) => s.service === 'payments' && s.kind === CLIENT && String(s.attributes['url.full']).endsWith('/settle'),
      ) &&
      has(spans, 'catalog', Subject.CatalogFetch, SERVER) &&
      STEPS.x402.every(([service, name]) => has(spans, service, name));
    const call = await tracedCall(path, { 'payment-signature': signature }, expected);
    expect(call.status).toBe(200);
    expect(expected(call.spans)).toBe(true);
    expectOneTree(call.spans, '/api/apps/:appId');
    const settle = call.spans.find((s) => s.name === 'x402.settle')!;
    expect(settle.attributes).toMatchObject({
      'appcat.rail': 'x402',
      'appcat.network': 'eip155:8453',
      'appcat.outcome': 'ok',
    });
    const facilitator = call.spans.find(
      (s) => s.name === 'x402.facilitator' && s.attributes['appcat.facilitator.operation'] === 'settle',
    )!;
    expect(facilitator.attributes['appcat.outcome']).toBe('answered');
    const evm = payload.payload as { signature: string };
    expectNoSecrets(call.spans, [signature, evm.signature]);
  });
});
