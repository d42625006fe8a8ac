/**
 * Spans encoded for OTLP/HTTP protobuf as they end, and sent in batches. Part of the tracing SDK
 * (tracing-sdk.ts): loaded only with tracing on.
 *
 * Why not the SDK's BatchSpanProcessor: it keeps each ended span, a graph of a dozen small objects,
 * until its batch is exported (512 spans, or 5 s). Under load a service scavenges its young generation
 * every few tens of milliseconds, so nearly every span outlived two scavenges, was copied twice and
 * promoted, and died in the old generation: measured on the credit path at 100 % sampling, the
 * gateway's garbage collection took 10 × its time with tracing off, more than every span's making and
 * encoding together. Here a span is encoded into the batch being filled when it ends
 * (otlp-span-encoder.ts) and is garbage at once; only the batch's bytes wait, in buffers reused from one
 * batch to the next, and go by the SDK's own OTLP/HTTP transport (endpoint, headers, compression,
 * timeout and retries from the standard settings).
 */
import { diag, TraceFlags } from '@opentelemetry/api';
import { type ExportResult, ExportResultCode, getNumberFromEnv } from '@opentelemetry/core';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
// For reading the collector's response. The trace serializer's own module: the package's index also
// loads the metrics SDK for its metrics serializer, about 1.8 MB of heap in every traced service. (The
// package has no exports map; the version is pinned.)
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer/build/src/trace/protobuf/index.js';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OtlpSpanBatchEncoder } from './otlp-span-encoder.js';

/** Encoded spans for one export. */
export interface EncodedSpans {
  /** One whole ExportTraceServiceRequest. */
  body: Uint8Array;
  /** How many spans it holds, for the exporter's own metrics and the queue limit. */
  spans: number;
}

/** The batch limits, from the standard OTEL_BSP_* settings, with the SDK's defaults. */
export interface EncodedSpanBatchLimits {
  maxExportBatchSize: number;
  maxQueueSize: number;
  scheduledDelayMillis: number;
}

export function batchLimitsFromEnv(): EncodedSpanBatchLimits {
  const maxQueueSize = getNumberFromEnv('OTEL_BSP_MAX_QUEUE_SIZE') ?? 2048;
  return {
    maxQueueSize,
    maxExportBatchSize: Math.min(getNumberFromEnv('OTEL_BSP_MAX_EXPORT_BATCH_SIZE') ?? 512, maxQueueSize),
    scheduledDelayMillis: getNumberFromEnv('OTEL_BSP_SCHEDULE_DELAY') ?? 5000,
  };
}

/** What the processor sends batches through (the OTLP/HTTP exporter below, or a test's). */
export interface EncodedSpanExporter {
  export(batch: EncodedSpans, done: (result: ExportResult) => void): void;
  shutdown(): Promise<void>;
}

/** OTLP/HTTP protobuf export of encoded batches, configured by the standard OTEL_EXPORTER_OTLP_* settings. */
export function otlpEncodedSpanExporter(): EncodedSpanExporter {
  return new OTLPExporterBase<EncodedSpans>(
    createOtlpHttpExportDelegate(
      convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' }),
      {
        serializeRequest: (batch) => batch.body,
        deserializeResponse: (data) => ProtobufTraceSerializer.deserializeResponse(data),
      },
      'otlp_http_span_exporter',
      { name: 'span', countItems: (batch) => batch.spans },
      undefined,
    ),
  );
}

/** What tracing-sdk.ts exports spans with for OTLP/HTTP protobuf. */
export function otlpEncodedSpanProcessor(): EncodedSpanProcessor {
  return new EncodedSpanProcessor(otlpEncodedSpanExporter());
}

/**
 * Invariants: a sampled span that ends is encoded into the batch being filled before `end` returns, and
 * exported once, unless the queue (spans encoded and waiting, at most `maxQueueSize`) is full, when it
 * is dropped and counted; batches go in the order they filled, one export in flight at a time;
 * `forceFlush` resolves once every span ended before it was called has been exported or dropped.
 */
export class EncodedSpanProcessor implements SpanProcessor {
  private readonly encoder = new OtlpSpanBatchEncoder();
  /** Batches filled and waiting for export, oldest first. */
  private readonly batches: EncodedSpans[] = [];
  /** Spans in `batches` and in flight. */
  private queuedSpans = 0;
  private timer: NodeJS.Timeout | undefined;
  private exporting: Promise<void> | undefined;
  private dropped = 0;
  private stopped = false;
  private shutdownOnce: Promise<void> | undefined;

  constructor(
    private readonly exporter: EncodedSpanExporter,
    private readonly limits: EncodedSpanBatchLimits = batchLimitsFromEnv(),
  ) {}

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if (this.stopped || (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.queuedSpans + this.encoder.spans >= this.limits.maxQueueSize) {
      if (this.dropped++ === 0) diag.warn('tracing: the span queue is full; spans are dropped until it drains');
      return;
    }
    // Called inside the span's `end`: a span that cannot be encoded is dropped, never thrown to its caller.
    try {
      this.encoder.add(span);
    } catch (error) {
      diag.error(`tracing: span ${span.name} could not be encoded`, error);
      return;
    }
    if (this.encoder.spans >= this.limits.maxExportBatchSize) {
      this.seal();
      void this.exportNext();
    } else
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.seal();
        void this.exportNext();
      }, this.limits.scheduledDelayMillis).unref();
  }

  async forceFlush(): Promise<void> {
    this.seal();
    while (this.batches.length > 0 || this.exporting) await (this.exporting ?? this.exportNext());
  }

  /** Once, however often and concurrently called: spans ending once it has begun are ignored. */
  shutdown(): Promise<void> {
    this.shutdownOnce ??= this.stop();
    return this.shutdownOnce;
  }

  private async stop(): Promise<void> {
    this.stopped = true;
    await this.forceFlush();
    await this.exporter.shutdown();
  }

  /** Ends the batch being filled (if it holds any span): it waits its turn for export. */
  private seal(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const spans = this.encoder.spans;
    const body = this.encoder.finish();
    if (body === undefined) return;
    this.batches.push({ body, spans });
    this.queuedSpans += spans;
  }

  /** Sends the oldest batch waiting, if none is in flight. */
  private exportNext(): Promise<void> {
    if (this.exporting) return this.exporting;
    const batch = this.batches.shift();
    if (batch === undefined) return Promise.resolve();
    this.exporting = new Promise<void>((resolve) => {
      const done = (result: ExportResult) => {
        if (result.code !== ExportResultCode.SUCCESS)
          diag.error(`tracing: ${batch.spans} spans were not exported`, result.error);
        resolve();
      };
      // An exporter that throws fails this batch only: the next one still goes.
      try {
        this.exporter.export(batch, done);
      } catch (error) {
        done({ code: ExportResultCode.FAILED, error: error as Error });
      }
    }).then(() => {
      this.queuedSpans -= batch.spans;
      this.exporting = undefined;
      // A batch that filled or timed out while this one was in flight goes now.
      if (this.batches.length > 0) void this.exportNext();
    });
    return this.exporting;
  }
}
