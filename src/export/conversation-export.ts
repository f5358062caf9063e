/**
 * A conversation's export as the chunks of a response body, from its stored events read in
 * batches (EventStore.exportEvents): JSON lines are the served bytes, one event a line;
 * Markdown is written section by section (markdown.ts). Chunks are gathered to about
 * CHUNK_BYTES, so that a long conversation costs a few hundred writes, not one per event,
 * and nothing holds more than a chunk and the store's batch.
 */
import type { Event, ExportFormat } from '../contract';
import { eventSection, isUserMessage, markdownHeading, taskSection } from './markdown';
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
export function conversationExport(format: ExportFormat, conversation: TracedConversation, events: AsyncIterable<Buffer>): ConversationExport {
  if (format === 'otlp' || format === 'atif') {
    const pieces = format === 'otlp' ? otlpJsonPieces(conversation, parsedEvents(events)) : atifJsonPieces(conversation, parsedEvents(events));
    return {
      contentType: 'application/json',
      fileName: `conversation-${conversation.conversationId}.${format === 'otlp' ? 'otlp' : 'atif'}.json`,
      chunks: gathered(encoded(pieces)),
    };
  }
  if (format === 'markdown') {
    return {
      contentType: 'text/markdown; charset=utf-8',
      fileName: `conversation-${conversation.conversationId}.md`,
      chunks: gathered(markdownPieces(conversation, events)),
    };
  }
  return { contentType: 'application/x-ndjson', fileName: `conversation-${conversation.conversationId}.jsonl`, chunks: gathered(jsonLines(events)) };
}

/**
 * One event a line. Stored JSON written with indentation holds line breaks between its
 * tokens (never inside a string, where JSON escapes them), so such an event is written
 * again on one line; every other is sent as stored.
 */
async function* jsonLines(events: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  for await (const bytes of events) {
    yield bytes.includes(NEWLINE) || bytes.includes(CARRIAGE_RETURN) ? Buffer.from(JSON.stringify(JSON.parse(bytes.toString('utf8')))) : bytes;
    yield LINE_END;
  }
}

const LINE_END = Buffer.from('\n');

/**
 * The heading, the task, then every other event in order. The task is the user's first
 * message, which comes after the system prompt and a few more: events before it are held
 * (at most TASK_LOOKAHEAD) and written after it, so the document opens with what was asked.
 */
async function* markdownPieces(
  conversation: { conversationId: string; title: string | null },
  events: AsyncIterable<Buffer>,
): AsyncGenerator<Buffer> {
  yield Buffer.from(markdownHeading(conversation));
  let held: Event[] | undefined = [];
  const release = function* (pending: Event[]): Generator<Buffer> {
    const task = pending.find(isUserMessage);
    if (task) yield Buffer.from(taskSection(task));
    for (const event of pending) if (event !== task) yield Buffer.from(eventSection(event));
  };
  for await (const bytes of events) {
    const event = JSON.parse(bytes.toString('utf8')) as Event;
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
