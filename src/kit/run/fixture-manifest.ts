/**
 * `--fixture MANIFEST`: the file `agent-server-contract fixture` writes beside the conversation, naming
 * the conversation and listing its events in stored order. Read here without depending on
 * the generator, so the kit also takes a manifest written by other tools in this shape.
 */
import { readFileSync } from 'node:fs';
import { observeEvent, type ObservedEvent } from './observed-event';

export interface FixtureManifest {
  /** As written in the manifest (32 hex digits from our generator). */
  conversationId: string;
  /** The events, `position` = stored order (the file index). */
  events: ObservedEvent[];
}

export type ManifestRead = { ok: true; manifest: FixtureManifest } | { ok: false; message: string };

export function readFixtureManifest(file: string): ManifestRead {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return {
      ok: false,
      message: `cannot read the fixture manifest ${file}: ${(error as Error).message}. Pass the .manifest.json that agent-server-contract fixture wrote.`,
    };
  }
  const record = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const { conversationId, events } = record;
  if (typeof conversationId !== 'string' || !Array.isArray(events)) {
    return {
      ok: false,
      message: `${file} is not a fixture manifest: expected {"conversationId": "...", "events": [...]}, as agent-server-contract fixture writes.`,
    };
  }
  return { ok: true, manifest: { conversationId, events: events.map((event, index) => observeEvent(event, index)) } };
}
