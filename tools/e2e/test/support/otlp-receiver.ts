import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

/** One span as an OTLP/JSON export carried it, flattened with its service's name. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: OtlpAttribute[];
      }>;
    }>;
  }>;
}

/** The fields of opentelemetry/proto's ExportTraceServiceRequest this receiver reads, as OTLP/JSON names them. */
const ExportTraceServiceRequest = protobuf
  .parse(
    `syntax = "proto3";
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { repeated Span spans = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; bytes parent_span_id = 4; string name = 5; int32 kind = 6;
  repeated KeyValue attributes = 9;
}
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; } }`,
  )
  .root.lookupType('ExportTraceServiceRequest');

/** An OTLP/HTTP protobuf request read into OTLP/JSON's shape (ids in hex, as JSON carries them). */
function decodeProtobuf(body: Buffer): OtlpExport {
  const request = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), {
    longs: Number,
    bytes: String,
    arrays: true,
  }) as OtlpExport;
  const hex = (base64: string | undefined) => Buffer.from(base64 ?? '', 'base64').toString('hex');
  for (const resourceSpans of request.resourceSpans ?? [])
    for (const scope of resourceSpans.scopeSpans ?? [])
      for (const span of scope.spans ?? []) {
        span.traceId = hex(span.traceId);
        span.spanId = hex(span.spanId);
        span.parentSpanId = hex(span.parentSpanId);
      }
  return request;
}

function attributesOf(list: OtlpAttribute[] = []): ReceivedSpan['attributes'] {
  return Object.fromEntries(
    list.map(({ key, value }) => [
      key,
      value.stringValue ??
        (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? value.boolValue ?? '')),
    ]),
  );
}

/**
 * A collector's OTLP/HTTP endpoint in the test process, for either protocol (`http/protobuf`, the
 * default, or `http/json`): keeps every span the services export.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];

  private readonly server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url !== '/v1/traces') return response.writeHead(404).end();
      const body = Buffer.concat(chunks);
      if (request.headers['content-type'] === 'application/x-protobuf') {
        this.take(decodeProtobuf(body));
        // An empty ExportTraceServiceResponse: everything accepted.
        return response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      }
      this.take(JSON.parse(body.toString()) as OtlpExport);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  url = '';

  static async start(): Promise<OtlpReceiver> {
    const receiver = new OtlpReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`;
    return receiver;
  }

  private take(body: OtlpExport): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name']);
      for (const scope of resourceSpans.scopeSpans ?? [])
        for (const span of scope.spans ?? [])
          this.spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
          });
    }
  }

  /** The spans of one trace, once `done` says they are all there (or after `timeoutMs`). */
  async trace(traceId: string, done: (spans: ReceivedSpan[]) => boolean, timeoutMs = 30_000): Promise<ReceivedSpan[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const spans = this.spans.filter((span) => span.traceId === traceId);
      if (done(spans) || Date.now() > deadline) return spans;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
