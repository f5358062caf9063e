/**
 * The values Schemathesis draws path and query parameters from besides its own (its "fuzz
 * dictionaries", dev/schemathesis/dictionaries/*.dict, named in schemathesis.toml): the ids,
 * kinds, sources and timestamps of a conversations directory in the reference layout, so that
 * generated requests reach stored conversations and events instead of ending in 404s. They are
 * read from sample-data/conversations, which `npm start` serves and the Schemathesis runs copy.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EVENT_FILE_PATTERN } from '../../src/fixture/layout';
import { hyphenateConversationId } from '../../src/fixture/ids';

export const DICTIONARIES_FOLDER = path.join(__dirname, 'dictionaries');
export const SAMPLE_CONVERSATIONS = path.resolve(__dirname, '..', '..', 'sample-data', 'conversations');

/** One dictionary file's entries, by the file's name. */
export type Dictionaries = Record<string, readonly string[]>;

/** Every third timestamp is enough to land filters inside, before and after stored events. */
const TIMESTAMP_STRIDE = 3;

interface StoredEvent {
  readonly id: string;
  readonly kind: string;
  readonly source?: string;
  readonly timestamp?: string;
}

function conversationFolders(conversationsPath: string): string[] {
  return readdirSync(conversationsPath)
    .filter((name) => /^[0-9a-f]{32}$/.test(name))
    .sort();
}

function storedEvents(conversationFolder: string): StoredEvent[] {
  const events = path.join(conversationFolder, 'events');
  if (!existsSync(events)) return [];
  return readdirSync(events)
    .filter((name) => EVENT_FILE_PATTERN.test(name))
    .sort((a, b) => Number(EVENT_FILE_PATTERN.exec(a)?.[1]) - Number(EVENT_FILE_PATTERN.exec(b)?.[1]))
    .map((name) => JSON.parse(readFileSync(path.join(events, name), 'utf8')) as StoredEvent);
}

/**
 * Conversation ids (hyphenated: the uuid format Schemathesis checks entries against) of every
 * conversation; event ids, kinds and sources of the one with the most events, and its
 * timestamps with a zone (Schemathesis only uses date-time entries that carry one as valid data).
 */
export function dictionariesOf(conversationsPath: string): Dictionaries {
  const folders = conversationFolders(conversationsPath);
  const withEvents = folders.map((folder) => ({ folder, events: storedEvents(path.join(conversationsPath, folder)) }));
  const richest = withEvents.reduce((best, candidate) => (candidate.events.length > best.events.length ? candidate : best));
  const distinct = (values: (string | undefined)[]) => [...new Set(values.filter((value): value is string => value !== undefined))].sort();
  return {
    'conversation-ids': folders.map(hyphenateConversationId),
    'event-conversation': [hyphenateConversationId(richest.folder)],
    'event-ids': richest.events.map((event) => event.id),
    'event-kinds': distinct(richest.events.map((event) => event.kind)),
    'event-sources': distinct(richest.events.map((event) => event.source)),
    'event-timestamps': richest.events
      .filter((_, index) => index % TIMESTAMP_STRIDE === 0)
      .flatMap((event) => (event.timestamp ? [`${event.timestamp}Z`] : [])),
  };
}

/** The libFuzzer dictionary format Schemathesis reads: one quoted entry a line, `#` comments. */
export function dictionaryFileText(name: string, entries: readonly string[]): string {
  const quoted = entries.map((entry) => `"${entry.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
  return [`# ${name}: written by \`npm run schemathesis -- --write-dictionaries\` from sample-data/conversations`, ...quoted, ''].join('\n');
}

export function writeDictionaries(dictionaries: Dictionaries, folder = DICTIONARIES_FOLDER): void {
  for (const [name, entries] of Object.entries(dictionaries)) writeFileSync(path.join(folder, `${name}.dict`), dictionaryFileText(name, entries));
}

/** Names of the checked-in dictionary files whose text differs from what the sample data gives. */
export function staleDictionaries(conversationsPath = SAMPLE_CONVERSATIONS, folder = DICTIONARIES_FOLDER): string[] {
  return Object.entries(dictionariesOf(conversationsPath))
    .filter(([name, entries]) => {
      const file = path.join(folder, `${name}.dict`);
      return !existsSync(file) || readFileSync(file, 'utf8') !== dictionaryFileText(name, entries);
    })
    .map(([name]) => `${name}.dict`);
}
