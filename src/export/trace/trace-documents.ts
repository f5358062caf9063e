/**
 * The trace and the trajectory as the pieces of one JSON document each, written while their
 * spans and steps are made: the OTLP/JSON `ExportTraceServiceRequest` and the ATIF
 * trajectory. Nothing holds more than the span or step being written.
 */
import type { Event } from '../../contract';
import { atifFrame, atifSteps } from './atif-trajectory';
import { type TracedConversation, TRACE_SCOPE, conversationSpans, traceResource } from './otlp-trace';

export async function* otlpJsonPieces(conversation: TracedConversation, events: AsyncIterable<Event>): AsyncGenerator<string> {
  const head = JSON.stringify({ resource: traceResource(), scopeSpans: [{ scope: TRACE_SCOPE, spans: [] }] });
  // The spans array is written open, its items one by one, then both objects closed.
  yield `{"resourceSpans":[${head.slice(0, -'[]}]}'.length)}[`;
  let separator = '';
  for await (const span of conversationSpans(conversation, events)) {
    yield separator + JSON.stringify(span);
    separator = ',';
  }
  yield ']}]}]}';
}

export async function* atifJsonPieces(conversation: TracedConversation, events: AsyncIterable<Event>): AsyncGenerator<string> {
  const frame = atifFrame(conversation);
  yield `${JSON.stringify(frame.head).slice(0, -1)},"steps":[`;
  let count = 0;
  for await (const step of atifSteps(conversation, events)) {
    yield (count === 0 ? '' : ',') + JSON.stringify(step);
    count += 1;
  }
  yield `],"final_metrics":${JSON.stringify(frame.finalMetrics(count))}}`;
}

/** Stored events (their JSON bytes) as parsed events. */
export async function* parsedEvents(events: AsyncIterable<Buffer>): AsyncGenerator<Event> {
  for await (const bytes of events) yield JSON.parse(bytes.toString('utf8')) as Event;
}
