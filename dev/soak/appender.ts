/**
 * Appends events while the server runs, the way an agent server writes them: one new file
 * per event in the reference naming (`event-<next index>-<id>.json`), written in place,
 * each timestamp a millisecond after the conversation's last. Conversations take turns.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { EventOfKind } from '../../src/contract';
import { eventFileName, formatNaiveTimestamp, serializeEvent } from '../../src/fixture';
import type { SoakConversation } from './dataset';

const TICK_MS = 20;
const STEP_MICROS = 1000;

export interface Appender {
  /** Stops writing; writes are synchronous, so none is left half done. */
  stop(): void;
  /** The appended event ids, by conversation id, in the order written. */
  readonly appended: ReadonlyMap<string, readonly string[]>;
}

/** Starts appending `perSecond` events a second, catching up on every tick so the rate holds under load. */
export function startAppender(conversations: SoakConversation[], perSecond: number): Appender {
  const appended = new Map<string, string[]>(conversations.map((conversation) => [conversation.id, []]));
  const started = performance.now();
  let written = 0;
  const tick = () => {
    const due = Math.floor(((performance.now() - started) / 1000) * perSecond);
    for (; written < due; written++) {
      const conversation = conversations[written % conversations.length]!;
      appended.get(conversation.id)!.push(appendOne(conversation, written));
    }
  };
  const timer = setInterval(tick, TICK_MS);
  return {
    appended,
    stop() {
      clearInterval(timer);
    },
  };
}

function appendOne(conversation: SoakConversation, n: number): string {
  const id = randomUUID();
  conversation.lastMicros += STEP_MICROS;
  const event: EventOfKind<'MessageEvent'> = {
    id,
    timestamp: formatNaiveTimestamp(conversation.lastMicros),
    source: 'user',
    llm_message: { role: 'user', content: [{ type: 'text', text: `Soak message ${n}: please keep going.`, cache_prompt: false }] },
    kind: 'MessageEvent',
  };
  writeFileSync(path.join(conversation.eventsDirectory, eventFileName(conversation.nextIndex, id)), serializeEvent(event));
  conversation.nextIndex += 1;
  return id;
}
