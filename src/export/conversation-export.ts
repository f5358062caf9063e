/**
 * A conversation's export as the chunks of a response body, from its stored events read in
 * batches (EventStore.exportEvents): JSON lines are the served bytes, one event a line;
 * Markdown is written section by section (markdown.ts). Chunks are gathered to about
 * CHUNK_BYTES, so that a long conversation costs a few hundred writes, not one per event,
 * and nothing holds more than a chunk and the store's batch. An event too large to be handed
 * out whole (a LargeEvent) is never read whole: it is streamed in pieces, masked as they are
 * read (see largeJsonLine), and for a trace also made smaller as it is read (see
 * maskedEvents). Every event passes through the secret policy (src/secrets) with the
 * conversation's known secrets.
 */
import type { Event, ExportFormat } from '../contract';
import { type Abridging, abridgedJson } from '../json/abridged-json';
import { jsonText } from '../json/json-text';
import { CREDENTIAL_MARK, type KnownSecrets, maskCredentialText, maskSecrets, maskedJson, maskedJsonPieces, maskingPlan } from '../secrets';
import type { ExportedEvent, LargeEvent } from '../store';
import { eventSection, isUserMessage, largeEventSection, markdownHeading, taskSection } from './markdown';
import {
  COMPLETION_LOG_MEMBERS,
  CUT_TEXT_HEAD_CHARACTERS,
  TRACE_EVENT_MEMBERS,
  TRACE_STRUCTURE_BYTES,
  TRACE_TEXT_CHARACTERS,
  cutText,
  omittedItems,
  omittedMembers,
} from './trace/event-parts';
import type { TracedConversation } from './trace/otlp-trace';
import { atifJsonPieces, otlpJsonPieces, parsedEvents } from './trace/trace-documents';

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export interface ConversationExport {
  contentType: string;
  fileName: string;
  chunks: AsyncIterable<Buffer>;
}

/** `info` is the conversation's catalog entry, read by the trace and the trajectory for the model and the recorded usage. */
export function conversationExport(
  format: ExportFormat,
  conversation: TracedConversation,
  events: AsyncIterable<ExportedEvent>,
  known: KnownSecrets,
): ConversationExport {
  if (format === 'otlp' || format === 'atif') {
    const masked = parsedEvents(maskedEvents(events, known));
    const pieces = format === 'otlp' ? otlpJsonPieces(conversation, masked) : atifJsonPieces(conversation, masked);
    return {
      contentType: 'application/json',
      fileName: `conversation-${conversation.conversationId}.${format}.json`,
      chunks: gathered(encoded(pieces)),
    };
  }
  if (format === 'markdown') {
    return {
      contentType: 'text/markdown; charset=utf-8',
      fileName: `conversation-${conversation.conversationId}.md`,
      chunks: gathered(markdownPieces(conversation, events, known)),
    };
  }
  return {
    contentType: 'application/x-ndjson',
    fileName: `conversation-${conversation.conversationId}.jsonl`,
    chunks: gathered(jsonLines(events, known)),
  };
}

/** One event a line. */
async function* jsonLines(events: AsyncIterable<ExportedEvent>, known: KnownSecrets): AsyncGenerator<Buffer> {
  for await (const event of events) {
    if (Buffer.isBuffer(event)) yield oneLine(maskedJson(event, known));
    else yield* largeJsonLine(event, known);
    yield LINE_END;
  }
}

/**
 * Stored JSON written with indentation holds line breaks between its tokens (never inside a
 * string, where JSON escapes them), so such an event is written again on one line; every
 * other is sent as it is.
 */
function oneLine(bytes: Buffer): Buffer {
  return bytes.includes(NEWLINE) || bytes.includes(CARRIAGE_RETURN) ? Buffer.from(jsonText(JSON.parse(bytes.toString('utf8')))) : bytes;
}

/**
 * A large event's line, from two readings of its pieces. The first masks them without
 * writing (maskingPlan): when nothing is masked and there is no line break between tokens,
 * the line is the stored bytes, sent as the second reading takes them; otherwise the second
 * reading is masked and written on one line as it comes (maskedJsonPieces).
 */
async function* largeJsonLine(event: LargeEvent, known: KnownSecrets): AsyncGenerator<Buffer> {
  const plan = await maskingPlan(() => event.pieces(), known, ONE_LINE);
  // A stored event is JSON, as the ingester decoded it: bytes that are not were replaced meanwhile, and the export is cut.
  if (plan.kind === 'notJson') throw notTheStoredJson(event, plan.reason);
  yield* plan.kind === 'unchanged' ? event.pieces() : maskedJsonPieces(event.pieces(), known, plan, ONE_LINE);
}

function notTheStoredJson(event: LargeEvent, reason: string): Error {
  return new Error(`The event ${event.id} is not the JSON the store read: ${reason}`);
}

const LINE_END = Buffer.from('\n');
/** A stored event as a line of the export. */
const ONE_LINE = { oneLine: true, json: true } as const;

/**
 * Events for the trace formats, which parse every one. A large event is read in pieces and
 * made smaller as it is read (abridged-json.ts): its long texts cut as a trace cuts them, and
 * past what a trace reads of its structure, the items and members the builders do not read
 * left out (a completion log's JSON text abridged inside, so that its usage is still read
 * from it). What is parsed is then bounded whatever the event, and no export holds it whole.
 * It is masked once smaller, as every event is: what masking reads of an object besides the
 * member names above a string (a credential's `strategy`) is kept whatever is left out.
 */
async function* maskedEvents(events: AsyncIterable<ExportedEvent>, known: KnownSecrets): AsyncGenerator<Buffer> {
  const abridging = traceAbridging(known);
  for await (const event of events) {
    if (Buffer.isBuffer(event)) {
      yield maskedJson(event, known);
      continue;
    }
    const abridged = await abridgedJson(event.pieces(), abridging);
    if (!abridged) throw notTheStoredJson(event, 'not JSON');
    yield maskedJson(abridged, known);
  }
}

/**
 * Long texts cut to what a trace carries, their heads masked with the conversation's known
 * secrets before the cut, since a value that straddles it would be left half shown; the
 * structure past what a trace reads left out.
 */
function traceAbridging(known: KnownSecrets): Abridging {
  return {
    longerThan: TRACE_TEXT_CHARACTERS,
    headCharacters: CUT_TEXT_HEAD_CHARACTERS,
    abridge: (head, length) => cutText(head, length, (text) => maskCredentialText(maskSecrets(text, known))),
    structureBytes: TRACE_STRUCTURE_BYTES,
    kept: TRACE_EVENT_MEMBERS,
    marks: CREDENTIAL_MARKS,
    omittedItems,
    omittedMembers,
    // A completion log's usage is read from the JSON document in its text.
    jsonInside: new Map([['log_data', COMPLETION_LOG_MEMBERS]]),
  };
}

const CREDENTIAL_MARKS: ReadonlySet<string> = new Set([CREDENTIAL_MARK]);

/**
 * The heading, the task, then every other event in order. The task is the user's first
 * message, which comes after the system prompt and a few more: events before it are held
 * (at most TASK_LOOKAHEAD) and written after it, so the document opens with what was asked.
 */
async function* markdownPieces(
  conversation: { conversationId: string; title: string | null },
  events: AsyncIterable<ExportedEvent>,
  known: KnownSecrets,
): AsyncGenerator<Buffer> {
  yield Buffer.from(markdownHeading(conversation));
  let held: Event[] | undefined = [];
  const release = function* (pending: Event[]): Generator<Buffer> {
    const task = pending.find(isUserMessage);
    if (task) yield Buffer.from(taskSection(task));
    for (const event of pending) if (event !== task) yield Buffer.from(eventSection(event));
  };
  for await (const exported of events) {
    // A large event is shown by what it is and its size only: what a document for people gains from its bytes is not worth memory that grows with them.
    if (!Buffer.isBuffer(exported)) {
      if (held) {
        yield* release(held);
        held = undefined;
      }
      yield Buffer.from(largeEventSection(exported));
      continue;
    }
    const event = maskSecrets(JSON.parse(exported.toString('utf8')) as Event, known);
    if (!held) {
      yield Buffer.from(eventSection(event));
      continue;
    }
    held.push(event);
    if (isUserMessage(event) || held.length >= TASK_LOOKAHEAD) {
      yield* release(held);
      held = undefined;
    }
  }
  if (held) yield* release(held);
}

/** Events read ahead at most while looking for the task. */
const TASK_LOOKAHEAD = 50;

async function* encoded(pieces: AsyncIterable<string>): AsyncGenerator<Buffer> {
  for await (const piece of pieces) yield Buffer.from(piece, 'utf8');
}

async function* gathered(pieces: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let held: Buffer[] = [];
  let size = 0;
  for await (const piece of pieces) {
    held.push(piece);
    size += piece.length;
    if (size >= CHUNK_BYTES) {
      yield Buffer.concat(held, size);
      held = [];
      size = 0;
    }
  }
  if (size > 0) yield Buffer.concat(held, size);
}
