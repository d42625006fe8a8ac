/**
 * The OpenTelemetry SDK, loaded by `runService` only when tracing is on (tracing-config.ts), before the
 * service's own code is imported: so a service that does not trace never loads it, and one that does
 * has its instrumentations in place before undici, ioredis, pg and node:http are first used. Not
 * exported from the package index, for the same reason.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { context, propagation, trace } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { type Instrumentation, registerInstrumentations } from '@opentelemetry/instrumentation';
import { detectResources, envDetector, hostDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { StackContextManager } from '@opentelemetry/sdk-trace';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { SpanRecorder } from './recorded-span.js';
import type { TracedLibrary, TracingConfig } from './tracing-config.js';
import { attachedContext, useTracer } from './tracing.js';

interface TracedLibrarySetup {
  instrument: () => Promise<Instrumentation>;
  /** The CommonJS modules the instrumentation patches. */
  modules: string[];
  /** Run once they are patched: makes the library's calls made later than their caller (see each) find its context. */
  carryContext?: (load: NodeJS.Require) => void;
}

/**
 * Each library a service may ask to be traced: its instrumentation (imported only when asked for) and
 * the CommonJS modules it patches. The spans they make are children of a sampled call's only
 * (`requireParentSpan`): the ledger flusher and the refresh queue poll Redis and Postgres all the time.
 * An instrumentation reads the active context when the library sends a call; where the library sends
 * it a turn after it was made, the call's own object carries the context it was made in (tracing.ts's
 * `attachContext`) and the send is run in it.
 */
const LIBRARIES: Record<TracedLibrary, TracedLibrarySetup> = {
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
    // No connection of ours auto-pipelines (libs/redis connectRedis), so each command is sent as it is
    // made, in its caller's context; an auto-pipelined one would be sent a turn later, outside it, and
    // get no span (the tracing e2e suite checks both services' Redis spans).
    modules: ['ioredis'],
  },
  pg: {
    instrument: async () =>
      new (await import('@opentelemetry/instrumentation-pg')).PgInstrumentation({ requireParentSpan: true }),
    modules: ['pg'],
    // A pool's query waits a turn for its connection: a query config object (`{ text, values }`) carries
    // the context its caller attached (the ledger flush's), and its client's query is made in it.
    carryContext: (load) => callInAttachedContext((load('pg') as typeof import('pg')).Client.prototype, 'query'),
  },
};

/**
 * Wraps `owner[method]` (already wrapped by an instrumentation) so that a call whose first argument
 * carries a context (`attachContext`) is made in it, where the instrumentation reads it.
 */
function callInAttachedContext(owner: object, method: string): void {
  type Method = (this: unknown, carrier: unknown, ...rest: unknown[]) => unknown;
  const methods = owner as Record<string, Method>;
  const original = methods[method];
  methods[method] = function (carrier, ...rest) {
    const ctx = attachedContext(carrier);
    return ctx === undefined
      ? original.call(this, carrier, ...rest)
      : context.with(ctx, () => original.call(this, carrier, ...rest));
  };
}

/**
 * Starts tracing for `service`: our span recorder (recorded-span.ts) as the tracer provider, deciding
 * with the sampler `config` names; the OTLP/HTTP exporter (batch size and export delay from the
 * standard OTEL_BSP_* settings); W3C trace context and baggage propagation; the instrumentations of the
 * `libraries` the service uses; and OpenTelemetry's synchronous context manager (see "How spans find
 * their parent" in tracing.ts): what the SDK's NodeTracerProvider registers, with the recorder in its
 * tracer's place. ServiceOps sends the spans still buffered at shutdown (`flushTraces`).
 */
export async function startTracing(
  service: string,
  config: TracingConfig,
  libraries: readonly TracedLibrary[],
): Promise<void> {
  const resource = resourceFromAttributes({ 'service.name': service, 'service.namespace': 'appcat' }).merge(
    detectResources({ detectors: [hostDetector, envDetector] }),
  );
  // Only the exporter of the protocol in use is loaded. Protobuf, the default, encodes spans as they end
  // (encoded-span-export.ts); JSON requests cannot be joined, so http/json keeps the SDK's batching.
  const processor =
    config.protocol === 'http/json'
      ? new BatchSpanProcessor(new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter())
      : (await import('./encoded-span-export.js')).otlpEncodedSpanProcessor();
  const recorder = new SpanRecorder(resource, { name: 'appcat' }, processor, config);
  trace.setGlobalTracerProvider(recorder.tracerProvider);
  context.setGlobalContextManager(new StackContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  const asked = libraries.map((library) => LIBRARIES[library]);
  registerInstrumentations({
    tracerProvider: recorder.tracerProvider,
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
  for (const library of asked) library.carryContext?.(require);
  useTracer(recorder.tracerProvider.getTracer('appcat'), () => processor.forceFlush(), recorder);
}
