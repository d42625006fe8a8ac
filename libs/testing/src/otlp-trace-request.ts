import protobuf from 'protobufjs';

/** One span of an OTLP trace request, as a collector reads it, with its resource's service and its scope. */
export interface DecodedSpan {
  /** The resource's `service.name`. */
  service: string | undefined;
  /** The instrumentation scope's name. */
  scope: string;
  name: string;
  /** In hex, as OTLP/JSON carries them; the parent's is empty for a root span. */
  traceId: string;
  spanId: string;
  parentSpanId: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
}

/** The fields of opentelemetry/proto's ExportTraceServiceRequest the tests read. */
const ExportTraceServiceRequest = protobuf
  .parse(
    `syntax = "proto3";
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { Scope scope = 1; repeated Span spans = 2; }
message Scope { string name = 1; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; bytes parent_span_id = 4; string name = 5; int32 kind = 6;
  repeated KeyValue attributes = 9;
}
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; }
}`,
    { keepCase: true },
  )
  .root.lookupType('ExportTraceServiceRequest');

interface KeyValue {
  key: string;
  value?: { string_value?: string; bool_value?: boolean; int_value?: number; double_value?: number };
}
interface Decoded {
  resource_spans: Array<{
    resource?: { attributes: KeyValue[] };
    scope_spans: Array<{
      scope?: { name: string };
      spans: Array<{
        trace_id: Uint8Array;
        span_id: Uint8Array;
        parent_span_id: Uint8Array;
        name: string;
        kind: number;
        attributes: KeyValue[];
      }>;
    }>;
  }>;
}

function attributesOf(list: KeyValue[] = []): DecodedSpan['attributes'] {
  return Object.fromEntries(
    list.map(({ key, value = {} }) => [
      key,
      value.string_value ?? value.int_value ?? value.double_value ?? value.bool_value ?? '',
    ]),
  );
}

/** An OTLP/HTTP protobuf trace request's spans, in the order it carries them. */
export function decodeOtlpTraceRequest(body: Uint8Array): DecodedSpan[] {
  const request = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), {
    arrays: true,
    defaults: true,
    longs: Number,
  }) as Decoded;
  const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
  return request.resource_spans.flatMap((resourceSpans) => {
    const service = resourceSpans.resource?.attributes.find((a) => a.key === 'service.name')?.value?.string_value;
    return resourceSpans.scope_spans.flatMap((scopeSpans) =>
      scopeSpans.spans.map((span) => ({
        service,
        scope: scopeSpans.scope?.name ?? '',
        name: span.name,
        traceId: hex(span.trace_id),
        spanId: hex(span.span_id),
        parentSpanId: hex(span.parent_span_id),
        kind: span.kind,
        attributes: attributesOf(span.attributes),
      })),
    );
  });
}
