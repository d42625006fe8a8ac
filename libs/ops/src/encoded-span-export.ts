/**
 * Spans encoded for OTLP/HTTP protobuf as soon as they end, and sent in batches. Part of the tracing
 * SDK (tracing-sdk.ts): loaded only with tracing on.
 *
 * Why not the SDK's BatchSpanProcessor: it keeps each ended span, a graph of a dozen small objects,
 * until its batch is exported (512 spans, or 5 s). Under load a service scavenges its young generation
 * every few tens of milliseconds, so nearly every span outlived two scavenges, was copied twice and
 * promoted, and died in the old generation: measured on the credit path at 100 % sampling, the
 * gateway's garbage collection took 10 × its time with tracing off, more than every span's making and
 * encoding together. Here the spans that ended in one turn of the event loop are encoded together at
 * its end (one OTLP ExportTraceServiceRequest, by the SDK's own serializer) and only those bytes wait
 * for the batch. A protobuf message concatenated with another of its type is the two merged, repeated
 * fields appended, so a batch's request is its parts one after another, sent by the SDK's own OTLP/HTTP
 * transport (endpoint, headers, compression, timeout and retries from the standard settings).
 */
import { diag, TraceFlags } from '@opentelemetry/api';
import { type ExportResult, ExportResultCode, getNumberFromEnv } from '@opentelemetry/core';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
// The trace serializer's own module: the package's index also loads the metrics SDK for its metrics
// serializer, about 1.8 MB of heap in every traced service. (The package has no exports map; the version
// is pinned.)
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer/build/src/trace/protobuf/index.js';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** Encoded spans for one export: each part a whole ExportTraceServiceRequest. */
export interface EncodedSpans {
  parts: Uint8Array[];
  /** How many spans the parts hold, for the exporter's own metrics and the queue limit. */
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
        serializeRequest: (batch) => (batch.parts.length === 1 ? batch.parts[0] : Buffer.concat(batch.parts)),
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
 * Invariants: a sampled span that ends is encoded within the event-loop turn it ended in, and
 * exported once, in order of ending, unless the queue (encoded and waiting, at most `maxQueueSize`
 * spans) is full, when it is dropped and counted; one export is in flight at a time; `forceFlush`
 * resolves once every span ended before it was called has been exported or dropped.
 */
export class EncodedSpanProcessor implements SpanProcessor {
  /** Ended this turn, not yet encoded. */
  private ended: ReadableSpan[] = [];
  private encodeScheduled = false;
  /** Encoded, waiting for export: the batch being filled is the last. */
  private readonly batches: EncodedSpans[] = [];
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
    if (this.queuedSpans + this.ended.length >= this.limits.maxQueueSize) {
      if (this.dropped++ === 0) diag.warn('tracing: the span queue is full; spans are dropped until it drains');
      return;
    }
    this.ended.push(span);
    if (!this.encodeScheduled) {
      this.encodeScheduled = true;
      setImmediate(() => this.encode());
    }
  }

  async forceFlush(): Promise<void> {
    this.encode();
    while (this.batches.length > 0 || this.exporting) await (this.exporting ?? this.exportNext(true));
  }

  /** Once, however often and concurrently called: spans ending once it has begun are ignored. */
  shutdown(): Promise<void> {
    this.shutdownOnce ??= this.stop();
    return this.shutdownOnce;
  }

  private async stop(): Promise<void> {
    this.stopped = true;
    await this.forceFlush();
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.exporter.shutdown();
  }

  /** Encodes the spans ended this turn into the batch being filled, and sends the batches that are full. */
  private encode(): void {
    this.encodeScheduled = false;
    if (this.ended.length === 0) return;
    const spans = this.ended;
    this.ended = [];
    const part = ProtobufTraceSerializer.serializeRequest(spans);
    if (part === undefined) return;
    let batch = this.batches.at(-1);
    if (batch === undefined || batch.spans >= this.limits.maxExportBatchSize) {
      batch = { parts: [], spans: 0 };
      this.batches.push(batch);
    }
    batch.parts.push(part);
    batch.spans += spans.length;
    this.queuedSpans += spans.length;
    if (batch.spans >= this.limits.maxExportBatchSize) void this.exportNext(false);
    else
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        void this.exportNext(true);
      }, this.limits.scheduledDelayMillis).unref();
  }

  /** Sends the oldest batch if none is in flight and it is full (or `evenPartial`). */
  private exportNext(evenPartial: boolean): Promise<void> {
    if (this.exporting) return this.exporting;
    const batch = this.batches[0];
    if (batch === undefined || (!evenPartial && batch.spans < this.limits.maxExportBatchSize)) return Promise.resolve();
    this.batches.shift();
    if (this.batches.length === 0) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
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
      // A batch that filled while this one was in flight goes now; one still filling waits for its
      // timer, or goes now if its timer fired meanwhile.
      const next = this.batches[0];
      if (next !== undefined)
        void this.exportNext(next.spans >= this.limits.maxExportBatchSize || this.timer === undefined);
    });
    return this.exporting;
  }
}
