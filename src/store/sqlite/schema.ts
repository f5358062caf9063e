/**
 * The index file's schema: the tables of PostgreSQL's schema (postgres/migrations/), so
 * the statements of sql/queries.ts and the ingester run on both, with SQLite's types, and
 * FTS5's trigram index for `text`. An index is a cache of the conversations
 * directory: a file of another version is not migrated but rebuilt from the directory
 * (index-file.ts), so this is the whole schema, and SCHEMA_VERSION changes with it.
 */
export const SCHEMA_VERSION = 7;

export const INDEX_SCHEMA = `
CREATE TABLE index_facts (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE conversations (
  id INTEGER PRIMARY KEY,
  hex TEXT NOT NULL UNIQUE,
  title TEXT,
  event_count INTEGER NOT NULL DEFAULT 0,
  skipped_count INTEGER NOT NULL DEFAULT 0,
  -- What the ingester saw when it last read the directory: which directory (a replaced one
  -- is read afresh), the events/ directory's times, meta.json's and base_state.json's versions.
  directory_identity TEXT,
  events_stamp TEXT,
  documents_stamp TEXT,
  -- Why the ingester's last look could not read the directory (ingester.ts, markUnreadable).
  unreadable TEXT
);

CREATE TABLE events (
  -- Never reused (AUTOINCREMENT): the trigram index holds every row up to a mark (below).
  row_id INTEGER PRIMARY KEY AUTOINCREMENT,
  conversation_id INTEGER NOT NULL REFERENCES conversations ON DELETE CASCADE,
  position INTEGER NOT NULL,
  file_name TEXT NOT NULL,
  -- The file's size and modification time when read: a restart reads again only files that differ.
  file_size INTEGER NOT NULL,
  file_modified_ms REAL NOT NULL,
  event_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  source TEXT,
  sort_micros INTEGER NOT NULL,
  body_text TEXT,
  search_text TEXT NOT NULL,
  payload BLOB NOT NULL,
  -- The properties the contract does not list that the stored event had, comma-joined (/health counts them).
  unlisted TEXT,
  conversation_uuid TEXT NOT NULL,
  ingest_seq INTEGER NOT NULL,
  UNIQUE (conversation_id, position)
);

CREATE INDEX events_in_order ON events (conversation_id, sort_micros, position);
CREATE INDEX events_by_kind ON events (conversation_id, kind, sort_micros, position);
CREATE INDEX events_by_source ON events (conversation_id, source, sort_micros, position);
-- With what a body search checks: it is answered from the index alone, its events' rows read only when they match (dialect.ts).
CREATE INDEX events_messages ON events (conversation_id, sort_micros, position, kind, source, body_text) WHERE body_text IS NOT NULL;
CREATE INDEX events_appended ON events (conversation_id, ingest_seq);
CREATE INDEX events_unlisted ON events (unlisted) WHERE unlisted IS NOT NULL;

-- Trigram index of the searched text (search_text). Trigram indexing costs more than
-- everything else an insert does, so rows are stored first and indexed after (text-index.ts):
-- the index holds exactly the rows up to events_text_mark, and a search scans the rows past it.
-- It keeps which rows hold a trigram, not where (detail=none): a third of the size the
-- columns' lists took, and faster to fill, for queries of single trigrams (dialect.ts).
CREATE VIRTUAL TABLE events_text USING fts5(search_text, content='events', content_rowid='row_id', tokenize='trigram', detail='none');
CREATE TABLE events_text_mark (
  through_row_id INTEGER NOT NULL
);
INSERT INTO events_text_mark (through_row_id) VALUES (0);
CREATE TRIGGER events_text_delete AFTER DELETE ON events WHEN old.row_id <= (SELECT through_row_id FROM events_text_mark) BEGIN
  INSERT INTO events_text (events_text, rowid, search_text) VALUES ('delete', old.row_id, old.search_text);
END;
CREATE TRIGGER events_text_update AFTER UPDATE OF search_text ON events WHEN old.row_id <= (SELECT through_row_id FROM events_text_mark) BEGIN
  INSERT INTO events_text (events_text, rowid, search_text) VALUES ('delete', old.row_id, old.search_text);
  INSERT INTO events_text (rowid, search_text) VALUES (new.row_id, new.search_text);
END;

-- The stored bytes of each event over LARGE_EVENT_BYTES again, in pieces of that size: a
-- download reads a large event piece by piece, and SQLite reads a whole value to take any
-- part of it, so pieces of the payload column would cost the event's size each.
CREATE TABLE event_pieces (
  conversation_id INTEGER NOT NULL,
  position INTEGER NOT NULL,
  piece INTEGER NOT NULL,
  bytes BLOB NOT NULL,
  PRIMARY KEY (conversation_id, position, piece),
  FOREIGN KEY (conversation_id, position) REFERENCES events (conversation_id, position) ON DELETE CASCADE
);

CREATE TABLE skipped_files (
  conversation_id INTEGER NOT NULL REFERENCES conversations ON DELETE CASCADE,
  file_name TEXT NOT NULL,
  reason TEXT NOT NULL,
  -- broken, unknown-kind or unknown-value (stored-event/decide.ts), for /health.
  because TEXT NOT NULL DEFAULT 'broken',
  size INTEGER NOT NULL,
  modified_ms REAL NOT NULL,
  PRIMARY KEY (conversation_id, file_name)
);

CREATE TABLE conversation_documents (
  conversation_id INTEGER PRIMARY KEY REFERENCES conversations ON DELETE CASCADE,
  hex TEXT NOT NULL,
  meta TEXT,
  state TEXT,
  in_catalog INTEGER NOT NULL,
  execution_status TEXT NOT NULL,
  created_micros INTEGER NOT NULL,
  updated_micros INTEGER NOT NULL,
  parent_hex TEXT
);
CREATE INDEX catalog_by_creation ON conversation_documents (created_micros, hex) WHERE in_catalog;
CREATE INDEX catalog_by_update ON conversation_documents (updated_micros, hex) WHERE in_catalog;
CREATE INDEX catalog_children ON conversation_documents (parent_hex, hex) WHERE in_catalog AND parent_hex IS NOT NULL;
`;

/**
 * The indexes a new index file is built without, sorted in once, when it is marked complete
 * (index-file.ts); an index that was ever complete has them, and keeps them up to date.
 *
 * The search across conversations (also PostgreSQL's, migration 0002) orders the events of
 * every conversation together, so a conversation's rows land all over those indexes, and
 * while an index is first built each conversation's commit rewrote pages across the whole
 * of each. Nothing reads them before the first pass is whole: the search across
 * conversations waits for it (indexed-directory.ts). The one of message events holds every
 * column a `body` search across conversations checks, its text included: the search walks
 * that index alone, and reads an event's row once it matches.
 *
 * The index by event id takes a conversation's rows at random places (an id is random), so
 * every commit of a long conversation's first read rewrote most of that conversation's part
 * of it. Until it is built, the one event the ingester stores per id is its own doing (its
 * list of stored ids, ingester.ts), and a cursor or an event asked for by id is found by
 * reading the conversation's rows: the same answer, slower in a long conversation.
 *
 * The index of a conversation's files holds what the ingester's list of them does
 * (ingester.ts, readStoredFiles), which it reads whole at its first look at a conversation
 * after a start: read from the rows, whose bytes fill their pages, it took a read of every
 * page of the conversation.
 */
export const AFTER_FIRST_PASS_INDEXES = `
CREATE INDEX IF NOT EXISTS events_across ON events (sort_micros, conversation_uuid, position);
CREATE INDEX IF NOT EXISTS events_across_by_kind ON events (kind, sort_micros, conversation_uuid, position);
CREATE INDEX IF NOT EXISTS events_across_by_source ON events (source, sort_micros, conversation_uuid, position);
CREATE INDEX IF NOT EXISTS events_across_messages ON events (sort_micros, conversation_uuid, position, conversation_id, kind, source, body_text)
  WHERE body_text IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS events_by_id ON events (conversation_id, event_id);
CREATE INDEX IF NOT EXISTS events_files ON events (conversation_id, position, file_name, event_id, file_size, file_modified_ms);
`;
