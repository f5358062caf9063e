/**
 * OTLP/HTTP's protobuf body: an `ExportTraceServiceRequest` (opentelemetry-proto,
 * `collector/trace/v1/trace_service.proto` and `trace/v1/trace.proto`) written from the
 * OTLP/JSON spans this package makes. Only the messages and fields those spans use are
 * written; the field numbers are the proto files'. Phoenix accepts only protobuf on
 * `/v1/traces`, and every collector accepts it, so the push sends this form.
 */
import type { OtlpKeyValue, OtlpSpan } from './otlp-trace';

/** A protobuf message under construction: its encoded fields in order. */
class Message {
  private readonly parts: Buffer[] = [];

  /** Wire type 2: a nested message, a string or bytes, length-prefixed. */
  bytes(field: number, value: Buffer): this {
    this.parts.push(varint((field << 3) | 2), varint(value.length), value);
    return this;
  }

  string(field: number, value: string | undefined): this {
    return value === undefined || value === '' ? this : this.bytes(field, Buffer.from(value, 'utf8'));
  }

  message(field: number, value: Message): this {
    return this.bytes(field, value.encode());
  }

  /** Wire type 0: an enum, a bool or an int64, as a varint (negative values in ten bytes, as protobuf writes them). */
  varint(field: number, value: bigint, inOneof = false): this {
    // A zero is protobuf's default and is left out, except as the chosen member of a oneof.
    if (value === 0n && !inOneof) return this;
    this.parts.push(varint((field << 3) | 0), varint(BigInt.asUintN(64, value)));
    return this;
  }

  /** Wire type 1: fixed64 and double. */
  fixed64(field: number, value: Buffer): this {
    this.parts.push(varint((field << 3) | 1), value);
    return this;
  }

  encode(): Buffer {
    return Buffer.concat(this.parts);
  }
}

function varint(input: number | bigint): Buffer {
  let value = BigInt(input);
  const bytes: number[] = [];
  while (value > 0x7fn) {
    bytes.push(Number(value & 0x7fn) | 0x80);
    value >>= 7n;
  }
  bytes.push(Number(value));
  return Buffer.from(bytes);
}

function uint64(value: string): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64LE(BigInt(value));
  return buffer;
}

function double(value: number): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeDoubleLE(value);
  return buffer;
}

/** `common.v1.KeyValue { key = 1; AnyValue value = 2 }`, AnyValue's string 1, bool 2, int 3, double 4. */
function keyValue(attribute: OtlpKeyValue): Message {
  const value = new Message();
  const given = attribute.value;
  if (given.stringValue !== undefined) value.bytes(1, Buffer.from(given.stringValue, 'utf8'));
  else if (given.boolValue !== undefined) value.varint(2, given.boolValue ? 1n : 0n, true);
  else if (given.intValue !== undefined) value.varint(3, BigInt(given.intValue), true);
  else if (given.doubleValue !== undefined) value.fixed64(4, double(given.doubleValue));
  return new Message().string(1, attribute.key).message(2, value);
}

/** `trace.v1.Span`: ids 1, 2 and parent 4 as bytes, name 5, kind 6, times 7 and 8 (fixed64), attributes 9, status 15. */
function span(given: OtlpSpan): Message {
  const message = new Message().bytes(1, Buffer.from(given.traceId, 'hex')).bytes(2, Buffer.from(given.spanId, 'hex'));
  if (given.parentSpanId) message.bytes(4, Buffer.from(given.parentSpanId, 'hex'));
  message.string(5, given.name).varint(6, BigInt(given.kind)).fixed64(7, uint64(given.startTimeUnixNano)).fixed64(8, uint64(given.endTimeUnixNano));
  for (const attribute of given.attributes) message.message(9, keyValue(attribute));
  // `Status { message = 2; code = 3 }`.
  message.message(15, new Message().string(2, given.status.message).varint(3, BigInt(given.status.code ?? 0)));
  return message;
}

/**
 * One `ExportTraceServiceRequest { ResourceSpans resource_spans = 1 }` holding these spans under
 * one resource (`Resource { attributes = 1 }`) and one scope (`ScopeSpans { scope = 1; spans = 2 }`,
 * `InstrumentationScope { name = 1; version = 2 }`).
 */
export function exportTraceServiceRequest(
  resource: { attributes: OtlpKeyValue[] },
  scope: { name: string; version?: string },
  spans: readonly OtlpSpan[],
): Buffer {
  const resourceMessage = new Message();
  for (const attribute of resource.attributes) resourceMessage.message(1, keyValue(attribute));
  const scopeSpans = new Message().message(1, new Message().string(1, scope.name).string(2, scope.version));
  for (const item of spans) scopeSpans.message(2, span(item));
  const resourceSpans = new Message().message(1, resourceMessage).message(2, scopeSpans);
  return new Message().message(1, resourceSpans).encode();
}
