/**
 * A conversation's export as the chunks of a response body, from its stored events read in
 * batches (EventStore.exportEvents): JSON lines are the served bytes, one event a line;
 * Markdown is written section by section (markdown.ts). Chunks are gathered to about
 * CHUNK_BYTES, so that a long conversation costs a few hundred writes, not one per event,
 * and nothing holds more than a chunk and the store's batch. Every event passes through the
 * secret policy (src/secrets) with the conversation's known secrets.
 */
import type { Event, ExportFormat } from '../contract';
import { jsonText } from '../json/json-text';
import { type KnownSecrets, maskSecrets, maskedJson } from '../secrets';
import { eventSection, isUserMessage, largeEventSection, markdownHeading, taskSection } from './markdown';
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
  events: AsyncIterable<Buffer>,
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

/**
 * One event a line. Stored JSON written with indentation holds line breaks between its
 * tokens (never inside a string, where JSON escapes them), so such an event is written
 * again on one line; every other is sent as stored.
 */
async function* jsonLines(events: AsyncIterable<Buffer>, known: KnownSecrets): AsyncGenerator<Buffer> {
  for await (const stored of events) {
    const bytes = maskedJson(stored, known);
    yield bytes.includes(NEWLINE) || bytes.includes(CARRIAGE_RETURN) ? Buffer.from(jsonText(JSON.parse(bytes.toString('utf8')))) : bytes;
    yield LINE_END;
  }
}

const LINE_END = Buffer.from('\n');

async function* maskedEvents(events: AsyncIterable<Buffer>, known: KnownSecrets): AsyncGenerator<Buffer> {
  for await (const stored of events) yield maskedJson(stored, known);
}

/**
 * The heading, the task, then every other event in order. The task is the user's first
 * message, which comes after the system prompt and a few more: events before it are held
 * (at most TASK_LOOKAHEAD) and written after it, so the document opens with what was asked.
 */
async function* markdownPieces(
  conversation: { conversationId: string; title: string | null },
  events: AsyncIterable<Buffer>,
  known: KnownSecrets,
): AsyncGenerator<Buffer> {
  yield Buffer.from(markdownHeading(conversation));
  let held: Event[] | undefined = [];
  const release = function* (pending: Event[]): Generator<Buffer> {
    const task = pending.find(isUserMessage);
    if (task) yield Buffer.from(taskSection(task));
    for (const event of pending) if (event !== task) yield Buffer.from(eventSection(event));
  };
  for await (const bytes of events) {
    // An event too large to read whole is shown by its size only: what a document for people gains from it is not worth memory that grows with it.
    if (bytes.length > MAX_RENDERED_EVENT_BYTES) {
      if (held) {
        yield* release(held);
        held = undefined;
      }
      yield Buffer.from(largeEventSection(bytes));
      continue;
    }
    const event = maskSecrets(JSON.parse(bytes.toString('utf8')) as Event, known);
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

/** The largest event written out in full; a larger one gets a section saying what it is and where to find it whole. */
const MAX_RENDERED_EVENT_BYTES = 1024 * 1024;

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
