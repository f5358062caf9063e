/** Conversations, their events and skipped files; the indexes every search walks. */
export const EVENTS_SCHEMA = `
-- Conversations and their events, as the ingester stores them from a conversations directory.
-- Every search is a walk of one of the ordered indexes below, from the conversation's first
-- (or a cursor's) key, so a page costs the same at any depth.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS btree_gin;

CREATE TABLE conversations (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- The conversation id as 32 lower-case hex digits: the directory's name.
  hex text NOT NULL UNIQUE CHECK (hex ~ '^[0-9a-f]{32}$'),
  -- Kept by the ingester in the same transaction as the rows they count; /health reads them.
  event_count bigint NOT NULL DEFAULT 0,
  skipped_count bigint NOT NULL DEFAULT 0
);

CREATE TABLE events (
  conversation_id integer NOT NULL REFERENCES conversations ON DELETE CASCADE,
  -- The file's index: append order, and the tie-break between equal timestamps.
  position bigint NOT NULL,
  file_name text NOT NULL,
  event_id text NOT NULL,
  kind text NOT NULL,
  -- The stored source, or the kind's default; NULL when neither exists.
  source text,
  -- Microseconds since the epoch, naive values read in the ingester's time zone; events
  -- without a readable timestamp hold the smallest bigint, so they sort first.
  sort_micros bigint NOT NULL,
  -- The lower-cased text a the body filter filter searches; message events only.
  body_text text,
  -- The event file's JSON bytes, trimmed, served unchanged.
  payload bytea NOT NULL,
  PRIMARY KEY (conversation_id, position)
);

CREATE INDEX events_in_order ON events (conversation_id, sort_micros, position);
CREATE INDEX events_by_kind ON events (conversation_id, kind, sort_micros, position);
CREATE INDEX events_by_source ON events (conversation_id, source, sort_micros, position);
CREATE INDEX events_by_id ON events (conversation_id, event_id, position);
-- Message events in order: a the body filter too short for trigrams walks these and checks each text.
CREATE INDEX events_messages ON events (conversation_id, sort_micros, position) WHERE body_text IS NOT NULL;
CREATE INDEX events_by_body ON events USING gin (conversation_id, body_text gin_trgm_ops) WHERE body_text IS NOT NULL;

-- Event files that are not served, and why; kept so /health counts them and a file that
-- changes is read again.
CREATE TABLE skipped_files (
  conversation_id integer NOT NULL REFERENCES conversations ON DELETE CASCADE,
  file_name text NOT NULL,
  reason text NOT NULL,
  size bigint NOT NULL,
  modified_ms double precision NOT NULL,
  PRIMARY KEY (conversation_id, file_name)
);
`;
