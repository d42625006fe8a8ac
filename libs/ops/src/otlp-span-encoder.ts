/**
 * OTLP trace requests (`ExportTraceServiceRequest`, protobuf) built span by span as spans end, into
 * buffers that are reused from one batch to the next. Part of the tracing SDK (encoded-span-export.ts).
 *
 * Why not the SDK's `ProtobufTraceSerializer`: it encodes a whole request per call, sized by a first
 * pass, into a new writer (with its own TextEncoder and buffer), with the resource and the scope each
 * time and a new byte array per span and parent id. Called for the one or two spans a service ends in an
 * event-loop turn, that fixed cost was most of it: measured on the credit path with every call sampled,
 * 22 µs of payments' CPU per call (two spans) and 19 µs of the gateway's (five), and the per-request
 * buffers it left waiting for the batch added to garbage collection. Here each span is written once,
 * where its scope's spans go; the resource and scope are encoded once per process; a batch is joined
 * into one request when it is sent. The bytes are the serializer's own, field for field (proven by
 * otlp-span-encoder.spec.ts against it).
 */
import type { Attributes, AttributeValue, HrTime, Link, SpanContext } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';

const LENGTH_DELIMITED = 2;
const VARINT = 0;
const FIXED64 = 1;
const FIXED32 = 5;

/** OTLP's span flags: the W3C trace flags, and whether the parent's remoteness is known and true. */
const FLAGS_HAS_IS_REMOTE = 0x100;
const FLAGS_IS_REMOTE = 0x200;

function varintSize(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;
}

/** Writes `value` (a uint32) as a varint at `at`; returns where the next byte goes. */
function writeVarintAt(out: Buffer, at: number, value: number): number {
  while (value > 0x7f) {
    out[at++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  out[at++] = value;
  return at;
}

/**
 * Spans repeat a small set of short strings (span names, attribute keys) and of attributes (a key with
 * the same short value: a subject, an outcome, a batch index), and copying their bytes is cheaper than
 * encoding them each time. Values that never repeat would fill the caches: each is emptied when full,
 * and what repeats comes back at its next use. Strings longer than 32 characters are not cached: that
 * leaves out the request ids (UUIDs, 36), one a sampled call on each side, whose cached bytes lived
 * until the cache was emptied, long enough to die in the old generation.
 */
const MAX_CACHED_STRING_LENGTH = 32;
const MAX_CACHED = 1024;
const encodedStrings = new Map<string, Buffer>();
const encodedAttributes = new Map<string, Map<CacheableValue, Buffer>>();
let cachedAttributes = 0;

/** A string field's length and UTF-8 bytes. */
function encodedString(value: string): Buffer {
  let encoded = encodedStrings.get(value);
  if (encoded === undefined) {
    const utf8 = Buffer.from(value, 'utf8');
    // Every byte is written: a slice of Node's pool, not an ArrayBuffer of its own.
    encoded = Buffer.allocUnsafe(varintSize(utf8.length) + utf8.length);
    encoded.set(utf8, writeVarintAt(encoded, 0, utf8.length));
    if (encodedStrings.size >= MAX_CACHED) encodedStrings.clear();
    encodedStrings.set(value, encoded);
  }
  return encoded;
}

/** A protobuf writer over one growing buffer, kept across uses (`reset`). */
class ProtoWriter {
  buffer = Buffer.allocUnsafe(4096);
  pos = 0;

  /** Empties the writer; a buffer grown past 1 MiB (a batch of huge spans) is let go. */
  reset(): void {
    this.pos = 0;
    if (this.buffer.length > 1 << 20) this.buffer = Buffer.allocUnsafe(4096);
  }

  private ensure(bytes: number): void {
    if (this.pos + bytes <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.pos + bytes) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buffer.copy(grown, 0, 0, this.pos);
    this.buffer = grown;
  }

  tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  /** An unsigned integer, or a negative int64 (as ten bytes of two's complement). */
  varint(value: number): void {
    this.ensure(10);
    const buffer = this.buffer;
    if (value >= 0 && value <= 0xffffffff) {
      this.pos = writeVarintAt(buffer, this.pos, value >>> 0);
      return;
    }
    let [low, high] = int64Halves(value);
    while (high > 0 || low > 0x7f) {
      buffer[this.pos++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    buffer[this.pos++] = low;
  }

  fixed32(value: number): void {
    this.ensure(4);
    this.buffer.writeUInt32LE(value >>> 0, this.pos);
    this.pos += 4;
  }

  /** An HrTime ([seconds, nanoseconds]) as fixed64 nanoseconds, without leaving safe integers. */
  time([seconds, nanos]: HrTime): void {
    this.ensure(8);
    // seconds × 1e9 is past 2^53: split seconds at 16 bits, so each product stays exact.
    const upper = Math.floor(seconds / 0x10000) * 1e9;
    const rest = (upper % 0x10000) * 0x10000 + (seconds % 0x10000) * 1e9 + nanos;
    this.buffer.writeUInt32LE(rest >>> 0, this.pos);
    this.buffer.writeUInt32LE((Math.floor(upper / 0x10000) + Math.floor(rest / 0x100000000)) >>> 0, this.pos + 4);
    this.pos += 8;
  }

  double(value: number): void {
    this.ensure(8);
    this.buffer.writeDoubleLE(value, this.pos);
    this.pos += 8;
  }

  /** A length-delimited string; a short one's bytes come from (and go into) the cache of repeated strings. */
  string(value: string): void {
    if (value.length > MAX_CACHED_STRING_LENGTH) {
      const bytes = Buffer.byteLength(value, 'utf8');
      this.varint(bytes);
      this.ensure(bytes);
      this.pos += this.buffer.write(value, this.pos, bytes, 'utf8');
      return;
    }
    this.raw(encodedString(value));
  }

  /** Bytes already encoded (a few dozen: a loop beats TypedArray#set at these sizes). */
  raw(encoded: Buffer): void {
    const length = encoded.length;
    this.ensure(length);
    const buffer = this.buffer;
    let pos = this.pos;
    for (let i = 0; i < length; i++) buffer[pos++] = encoded[i];
    this.pos = pos;
  }

  bytes(value: Uint8Array): void {
    this.varint(value.length);
    this.ensure(value.length);
    this.buffer.set(value, this.pos);
    this.pos += value.length;
  }

  /** A trace or span id given in hex, as its bytes. */
  hexId(hex: string): void {
    const length = hex.length >> 1;
    this.varint(length);
    this.ensure(length);
    const buffer = this.buffer;
    let pos = this.pos;
    for (let i = 0; i < length; i++) buffer[pos++] = (nibble(hex, 2 * i) << 4) | nibble(hex, 2 * i + 1);
    this.pos = pos;
  }

  /** Starts a length-delimited message; `end` writes its length, moving it if `reserve` bytes are too few or too many. */
  begin(reserve = 1): number {
    this.ensure(reserve);
    this.pos += reserve;
    return this.pos;
  }

  end(start: number, reserve = 1): void {
    const length = this.pos - start;
    const size = varintSize(length);
    if (size !== reserve) {
      this.ensure(size - reserve);
      this.buffer.copy(this.buffer, start + size - reserve, start, this.pos);
      this.pos += size - reserve;
    }
    writeVarintAt(this.buffer, start - reserve, length);
  }

  /** What was written, copied out. */
  copy(): Buffer {
    return Buffer.from(this.buffer.subarray(0, this.pos));
  }
}

function nibble(hex: string, at: number): number {
  const code = hex.charCodeAt(at);
  return code <= 57 ? code - 48 : (code | 0x20) - 87;
}

/** An integer outside uint32 as the low and high 32 bits of its int64 two's complement. */
function int64Halves(value: number): [low: number, high: number] {
  const magnitude = Math.abs(value);
  let low = magnitude >>> 0;
  let high = Math.floor(magnitude / 0x100000000) >>> 0;
  if (value < 0) {
    low = ~low >>> 0;
    high = ~high >>> 0;
    low = (low + 1) >>> 0;
    if (low === 0) high = (high + 1) >>> 0;
  }
  return [low, high];
}

function writeAttributes(writer: ProtoWriter, field: number, attributes: Attributes): void {
  for (const key in attributes) {
    if (!Object.prototype.hasOwnProperty.call(attributes, key)) continue;
    const value = attributes[key];
    writer.tag(field, LENGTH_DELIMITED);
    if (cacheable(value)) writer.raw(encodedAttribute(key, value));
    else writeKeyValue(writer, key, value);
  }
}

type CacheableValue = string | number | boolean;

function cacheable(value: unknown): value is CacheableValue {
  switch (typeof value) {
    case 'string':
      return value.length <= MAX_CACHED_STRING_LENGTH;
    case 'number':
      return Number.isInteger(value) && value >= 0 && value <= 0xffff;
    case 'boolean':
      return true;
    default:
      return false;
  }
}

/** Writes the misses of `encodedAttribute`. */
const scratch = new ProtoWriter();

/** An attribute's KeyValue message, length first. */
function encodedAttribute(key: string, value: CacheableValue): Buffer {
  let byValue = encodedAttributes.get(key);
  let encoded = byValue?.get(value);
  if (encoded === undefined) {
    scratch.reset();
    writeKeyValue(scratch, key, value);
    encoded = scratch.copy();
    if (cachedAttributes >= MAX_CACHED) {
      encodedAttributes.clear();
      cachedAttributes = 0;
      byValue = undefined;
    }
    if (byValue === undefined) encodedAttributes.set(key, (byValue = new Map()));
    byValue.set(value, encoded);
    cachedAttributes++;
  }
  return encoded;
}

/** A KeyValue message, length first. */
function writeKeyValue(writer: ProtoWriter, key: string, value: AttributeValue | undefined): void {
  const start = writer.begin();
  writer.tag(1, LENGTH_DELIMITED);
  writer.string(key);
  writer.tag(2, LENGTH_DELIMITED);
  writeAnyValue(writer, value);
  writer.end(start);
}

/** An AnyValue message, length first; a value of no OTLP type is an empty one. */
function writeAnyValue(writer: ProtoWriter, value: unknown): void {
  const start = writer.begin();
  switch (typeof value) {
    case 'string':
      writer.tag(1, LENGTH_DELIMITED);
      writer.string(value);
      break;
    case 'boolean':
      writer.tag(2, VARINT);
      writer.varint(value ? 1 : 0);
      break;
    case 'number':
      // An integer that fits int64 is int_value; anything else double_value.
      if (Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63) {
        writer.tag(3, VARINT);
        writer.varint(value);
      } else {
        writer.tag(4, FIXED64);
        writer.double(value);
      }
      break;
    case 'object':
      if (value instanceof Uint8Array) {
        writer.tag(7, LENGTH_DELIMITED);
        writer.bytes(value);
      } else if (Array.isArray(value)) {
        writer.tag(5, LENGTH_DELIMITED);
        const array = writer.begin();
        for (const item of value) {
          writer.tag(1, LENGTH_DELIMITED);
          writeAnyValue(writer, item);
        }
        writer.end(array);
      } else if (value !== null) {
        writer.tag(6, LENGTH_DELIMITED);
        const list = writer.begin();
        const entries = value as Record<string, unknown>;
        for (const key in entries) {
          if (!Object.prototype.hasOwnProperty.call(entries, key)) continue;
          writer.tag(1, LENGTH_DELIMITED);
          writeKeyValue(writer, key, entries[key] as AttributeValue);
        }
        writer.end(list);
      }
      break;
  }
  writer.end(start);
}

function spanFlags(context: SpanContext, parentIsRemote: boolean | undefined): number {
  return (context.traceFlags & 0xff) | FLAGS_HAS_IS_REMOTE | (parentIsRemote ? FLAGS_IS_REMOTE : 0);
}

function writeEvent(writer: ProtoWriter, event: TimedEvent): void {
  const start = writer.begin();
  writer.tag(1, FIXED64);
  writer.time(event.time);
  writer.tag(2, LENGTH_DELIMITED);
  writer.string(event.name);
  if (event.attributes) writeAttributes(writer, 3, event.attributes);
  writer.tag(4, VARINT);
  writer.varint(event.droppedAttributesCount ?? 0);
  writer.end(start);
}

/** trace_id, span_id and trace_state: fields 1–3 of both a Span and a Link. */
function writeIds(writer: ProtoWriter, context: SpanContext): void {
  writer.tag(1, LENGTH_DELIMITED);
  writer.hexId(context.traceId);
  writer.tag(2, LENGTH_DELIMITED);
  writer.hexId(context.spanId);
  const traceState = context.traceState?.serialize();
  if (traceState) {
    writer.tag(3, LENGTH_DELIMITED);
    writer.string(traceState);
  }
}

function writeLink(writer: ProtoWriter, link: Link): void {
  const start = writer.begin();
  const context = link.context;
  writeIds(writer, context);
  if (link.attributes) writeAttributes(writer, 4, link.attributes);
  writer.tag(5, VARINT);
  writer.varint(link.droppedAttributesCount ?? 0);
  writer.tag(6, FIXED32);
  writer.fixed32(spanFlags(context, context.isRemote));
  writer.end(start);
}

/** One Span message with its field tag (ScopeSpans.spans), as the SDK's serializer writes it. */
function writeSpan(writer: ProtoWriter, span: ReadableSpan): void {
  writer.tag(2, LENGTH_DELIMITED);
  const start = writer.begin(2);
  const context = span.spanContext();
  writeIds(writer, context);
  const parentId = span.parentSpanContext?.spanId;
  if (parentId) {
    writer.tag(4, LENGTH_DELIMITED);
    writer.hexId(parentId);
  }
  writer.tag(5, LENGTH_DELIMITED);
  writer.string(span.name);
  // OTLP's kinds count from UNSPECIFIED (0), the API's from INTERNAL (0).
  if (span.kind !== undefined && span.kind !== null) {
    writer.tag(6, VARINT);
    writer.varint(span.kind + 1);
  }
  writer.tag(7, FIXED64);
  writer.time(span.startTime);
  writer.tag(8, FIXED64);
  writer.time(span.endTime);
  writeAttributes(writer, 9, span.attributes);
  writer.tag(10, VARINT);
  writer.varint(span.droppedAttributesCount);
  for (const event of span.events) {
    writer.tag(11, LENGTH_DELIMITED);
    writeEvent(writer, event);
  }
  writer.tag(12, VARINT);
  writer.varint(span.droppedEventsCount);
  for (const link of span.links) {
    writer.tag(13, LENGTH_DELIMITED);
    writeLink(writer, link);
  }
  writer.tag(14, VARINT);
  writer.varint(span.droppedLinksCount);
  writer.tag(15, LENGTH_DELIMITED);
  const status = writer.begin();
  if (span.status.message) {
    writer.tag(2, LENGTH_DELIMITED);
    writer.string(span.status.message);
  }
  writer.tag(3, VARINT);
  writer.varint(span.status.code);
  writer.end(status);
  writer.tag(16, FIXED32);
  writer.fixed32(spanFlags(context, span.parentSpanContext?.isRemote));
  writer.end(start, 2);
}

/** A Resource message's content (without tag and length): its attributes, and no dropped ones. */
function resourceBytes(resource: Resource): Buffer {
  const writer = new ProtoWriter();
  writeAttributes(writer, 1, resource.attributes);
  writer.tag(2, VARINT);
  writer.varint(0);
  return writer.copy();
}

/** An InstrumentationScope message's content (without tag and length). */
function scopeBytes(
  scope: InstrumentationScope & { attributes?: Attributes; droppedAttributesCount?: number },
): Buffer {
  const writer = new ProtoWriter();
  writer.tag(1, LENGTH_DELIMITED);
  writer.string(scope.name);
  if (scope.version) {
    writer.tag(2, LENGTH_DELIMITED);
    writer.string(scope.version);
  }
  if (scope.attributes) writeAttributes(writer, 3, scope.attributes);
  if (scope.droppedAttributesCount) {
    writer.tag(4, VARINT);
    writer.varint(scope.droppedAttributesCount);
  }
  return writer.copy();
}

/** The spans of one scope in the batch being filled, encoded one after another. */
interface ScopeSpans {
  /** InstrumentationScope's content, then (after the spans) the schema_url field, if any. */
  readonly encodedScope: Buffer;
  readonly encodedSchemaUrl: Buffer | undefined;
  readonly spans: ProtoWriter;
}

interface ResourceSpans {
  readonly encodedResource: Buffer;
  readonly encodedSchemaUrl: Buffer | undefined;
  /** Every scope seen, with spans in this batch or not. */
  readonly scopes: Map<InstrumentationScope, ScopeSpans>;
  /** The scopes with spans in this batch, in the order their first span was added. */
  inBatch: ScopeSpans[];
}

/** A string field's bytes (tag, length, UTF-8), or undefined for no string. */
function stringField(field: number, value: string | undefined): Buffer | undefined {
  if (!value) return undefined;
  const writer = new ProtoWriter();
  writer.tag(field, LENGTH_DELIMITED);
  writer.string(value);
  return writer.copy();
}

/** The size of a length-delimited field's tag and length. */
function prefixSize(field: number, length: number): number {
  return varintSize(field << 3) + varintSize(length);
}

/** Writes a length-delimited field's tag and length at `at`; returns where its content goes. */
function writePrefix(out: Buffer, at: number, field: number, length: number): number {
  return writeVarintAt(out, writeVarintAt(out, at, (field << 3) | LENGTH_DELIMITED), length);
}

function scopeSpansSize(scope: ScopeSpans): number {
  return (
    prefixSize(1, scope.encodedScope.length) +
    scope.encodedScope.length +
    scope.spans.pos +
    (scope.encodedSchemaUrl?.length ?? 0)
  );
}

/**
 * Encodes ended spans into one OTLP `ExportTraceServiceRequest` at a time: `add` each span, then
 * `finish` for the request's bytes, after which the next batch begins in the same buffers.
 * Invariants: the request holds every span added since the last `finish`, grouped by resource and then
 * scope in the order each first appeared, in the order added within a scope; with one resource and one
 * scope it is byte for byte what the SDK's `ProtobufTraceSerializer` makes of the same spans.
 */
export class OtlpSpanBatchEncoder {
  private readonly resources = new Map<Resource, ResourceSpans>();
  private inBatch: ResourceSpans[] = [];
  private count = 0;

  /** How many spans the batch being filled holds. */
  get spans(): number {
    return this.count;
  }

  /** Adds `span` to the batch; one that cannot be encoded throws and leaves the batch as it was. */
  add(span: ReadableSpan): void {
    let resource = this.resources.get(span.resource);
    if (resource === undefined) {
      resource = {
        encodedResource: resourceBytes(span.resource),
        encodedSchemaUrl: stringField(3, span.resource.schemaUrl),
        scopes: new Map(),
        inBatch: [],
      };
      this.resources.set(span.resource, resource);
    }
    let scope = resource.scopes.get(span.instrumentationScope);
    if (scope === undefined) {
      scope = {
        encodedScope: scopeBytes(span.instrumentationScope),
        encodedSchemaUrl: stringField(3, span.instrumentationScope.schemaUrl),
        spans: new ProtoWriter(),
      };
      resource.scopes.set(span.instrumentationScope, scope);
    }
    const before = scope.spans.pos;
    try {
      writeSpan(scope.spans, span);
    } catch (error) {
      scope.spans.pos = before;
      throw error;
    }
    if (before === 0) {
      if (resource.inBatch.length === 0) this.inBatch.push(resource);
      resource.inBatch.push(scope);
    }
    this.count++;
  }

  /** The batch as one request (a new buffer, the caller's), or undefined when it is empty; the next batch begins. */
  finish(): Buffer | undefined {
    if (this.count === 0) return undefined;
    const sizes = this.inBatch.map((resource) => {
      let size = prefixSize(1, resource.encodedResource.length) + resource.encodedResource.length;
      for (const scope of resource.inBatch) {
        const content = scopeSpansSize(scope);
        size += prefixSize(2, content) + content;
      }
      return size + (resource.encodedSchemaUrl?.length ?? 0);
    });
    const out = Buffer.allocUnsafe(sizes.reduce((sum, size) => sum + prefixSize(1, size) + size, 0));
    let at = 0;
    this.inBatch.forEach((resource, i) => {
      at = writePrefix(out, at, 1, sizes[i]);
      at = writePrefix(out, at, 1, resource.encodedResource.length);
      at += resource.encodedResource.copy(out, at);
      for (const scope of resource.inBatch) {
        at = writePrefix(out, at, 2, scopeSpansSize(scope));
        at = writePrefix(out, at, 1, scope.encodedScope.length);
        at += scope.encodedScope.copy(out, at);
        at += scope.spans.buffer.copy(out, at, 0, scope.spans.pos);
        if (scope.encodedSchemaUrl) at += scope.encodedSchemaUrl.copy(out, at);
        scope.spans.reset();
      }
      if (resource.encodedSchemaUrl) at += resource.encodedSchemaUrl.copy(out, at);
      resource.inBatch = [];
    });
    this.inBatch = [];
    this.count = 0;
    return out;
  }
}
