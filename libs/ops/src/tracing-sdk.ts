/**
 * The OpenTelemetry SDK, loaded by `runService` only when tracing is on (tracing-config.ts), before the
 * service's own code is imported: so a service that does not trace never loads it, and one that does
 * has its instrumentations in place before Fastify, undici, ioredis and pg are first imported. Not
 * exported from the package index, for the same reason.
 */
import { register } from 'node:module';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { detectResources, envDetector, hostDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { TracingConfig } from './tracing-config.js';
import { useTracer } from './tracing.js';

/** What the instrumentations patch when imported as ES modules (undici reports through diagnostics channels). */
const HOOKED_MODULES = ['http', 'https', 'node:http', 'node:https', 'ioredis', 'pg', 'pg-pool'];

/** Probes and scrapes are not traced: each would be a trace of its own, every few seconds. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Starts tracing for `service`: the tracer provider (sampler, batch size and export delay from the
 * standard OTEL_* settings, read by the SDK), the OTLP/HTTP exporter, W3C trace context propagation,
 * and the instrumentations. ServiceOps sends the spans still buffered at shutdown (`flushTraces`).
 */
export function startTracing(service: string, config: TracingConfig): void {
  // ES modules are instrumented through a loader hook: it sees only the modules imported after it, and
  // wraps only those the instrumentations below patch (wrapping every module costs each import).
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: HOOKED_MODULES } });
  const resource = resourceFromAttributes({ 'service.name': service, 'service.namespace': 'appcat' }).merge(
    detectResources({ detectors: [hostDetector, envDetector] }),
  );
  const exporter = config.protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter();
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0]),
        // Outgoing requests outside any traced work (none today) would each start a trace.
        requireParentforOutgoingSpans: true,
      }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
      // The ledger flusher and the refresh queue poll Redis and Postgres all the time: only work that
      // belongs to a traced call is traced. The command name only: its arguments hold key hashes.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  useTracer(provider.getTracer('appcat'), () => provider.forceFlush());
}
