/**
 * The OpenTelemetry SDK, loaded by `runService` only when tracing is on (tracing-config.ts), before the
 * service's own code is imported: so a service that does not trace never loads it, and one that does
 * has its instrumentations in place before undici, ioredis, pg and node:http are first used. Not
 * exported from the package index, for the same reason.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { type Instrumentation, registerInstrumentations } from '@opentelemetry/instrumentation';
import { detectResources, envDetector, hostDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { TracedLibrary, TracingConfig } from './tracing-config.js';
import { type TraceContextMode, useTracer } from './tracing.js';

/**
 * Each library a service may ask to be traced: its instrumentation (imported only when asked for) and
 * the CommonJS modules it patches. The spans they make are children of a sampled call's only
 * (`requireParentSpan`): the ledger flusher and the refresh queue poll Redis and Postgres all the time.
 */
const LIBRARIES: Record<TracedLibrary, { instrument: () => Promise<Instrumentation>; modules: string[] }> = {
  // Requests the service makes over node:http(s) (payments' facilitator client); the gateway's incoming
  // requests have their spans from its own Fastify hooks.
  'http-client': {
    instrument: async () =>
      new (await import('@opentelemetry/instrumentation-http')).HttpInstrumentation({
        disableIncomingRequestInstrumentation: true,
        requireParentforOutgoingSpans: true,
      }),
    modules: ['http', 'https'],
  },
  // Reports through diagnostics channels: nothing to patch.
  undici: {
    instrument: async () =>
      new (await import('@opentelemetry/instrumentation-undici')).UndiciInstrumentation({
        requireParentforSpans: true,
      }),
    modules: [],
  },
  ioredis: {
    instrument: async () =>
      // The command name only: its arguments hold key hashes.
      new (await import('@opentelemetry/instrumentation-ioredis')).IORedisInstrumentation({
        requireParentSpan: true,
        dbStatementSerializer: (command) => command,
      }),
    modules: ['ioredis'],
  },
  pg: {
    instrument: async () =>
      new (await import('@opentelemetry/instrumentation-pg')).PgInstrumentation({ requireParentSpan: true }),
    modules: ['pg'],
  },
};

/**
 * Starts tracing for `service`: the tracer provider (sampler, batch size and export delay from the
 * standard OTEL_* settings, read by the SDK), the OTLP/HTTP exporter, W3C trace context propagation,
 * the instrumentations of the `libraries` the service uses, and, for `async` context, OpenTelemetry's
 * AsyncLocalStorage context manager (none for `explicit`: see TraceContextMode). ServiceOps sends
 * the spans still buffered at shutdown (`flushTraces`).
 */
export async function startTracing(
  service: string,
  config: TracingConfig,
  libraries: readonly TracedLibrary[],
  contextMode: TraceContextMode,
): Promise<void> {
  if (contextMode === 'explicit' && libraries.length > 0)
    throw new Error(`${service}: the instrumentations of ${libraries.join(', ')} need the async trace context`);
  const resource = resourceFromAttributes({ 'service.name': service, 'service.namespace': 'appcat' }).merge(
    detectResources({ detectors: [hostDetector, envDetector] }),
  );
  // Only the exporter of the protocol in use is loaded. Protobuf, the default, encodes spans as they end
  // (encoded-span-export.ts); JSON requests cannot be joined, so http/json keeps the SDK's batching.
  const processor =
    config.protocol === 'http/json'
      ? new BatchSpanProcessor(new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter())
      : (await import('./encoded-span-export.js')).otlpEncodedSpanProcessor();
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register(contextMode === 'explicit' ? { contextManager: null } : {});
  const asked = libraries.map((library) => LIBRARIES[library]);
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: await Promise.all(asked.map((library) => library.instrument())),
  });
  // The instrumentations patch CommonJS modules as they are required. Our code imports them as ES
  // modules, which share the one CommonJS instance: requiring each here, before the service's code is
  // imported, patches the instance its imports then get (and, for node:http, the named exports too).
  // No ES module loader hook (@opentelemetry/instrumentation/hook.mjs): on Node 20 it runs in a thread
  // of its own, which cost each service 15–20 MB resident.
  const require = createRequire(import.meta.url);
  for (const name of asked.flatMap((library) => library.modules)) require(name);
  syncBuiltinESMExports();
  useTracer(provider.getTracer('appcat'), () => provider.forceFlush());
}
