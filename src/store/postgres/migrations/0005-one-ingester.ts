/**
 * What the one ingester (src/store/ingest/ingester.ts) keeps beside the events, as the
 * SQLite index keeps it: the text the `text` filter searches (with its trigram index),
 * what /health counts (properties the contract does not list, why a file is not
 * served), each file's size and time (a restart reads again only files that differ), what the
 * ingester last saw of each conversation directory, and one event per id in a
 * conversation (of two files sharing an id the later is served, so a count and a walk of
 * pages agree). Rows stored before have no search text: the next ingest reads their files again.
 */
export const ONE_INGESTER_SCHEMA = `
ALTER TABLE events ADD COLUMN search_text text;
ALTER TABLE events ADD COLUMN unlisted text;
ALTER TABLE skipped_files ADD COLUMN because text NOT NULL DEFAULT 'broken';
ALTER TABLE events ADD COLUMN file_size bigint NOT NULL DEFAULT -1;
ALTER TABLE events ADD COLUMN file_modified_ms double precision NOT NULL DEFAULT -1;
ALTER TABLE conversations ADD COLUMN directory_identity text;
ALTER TABLE conversations ADD COLUMN events_stamp text;
ALTER TABLE conversations ADD COLUMN documents_stamp text;
CREATE INDEX events_by_text ON events USING gin (search_text gin_trgm_ops);
CREATE INDEX events_unlisted ON events (unlisted) WHERE unlisted IS NOT NULL;

DELETE FROM events e USING events later
  WHERE later.conversation_id = e.conversation_id AND later.event_id = e.event_id AND later.position > e.position;
UPDATE conversations c SET event_count = (SELECT count(*) FROM events WHERE conversation_id = c.id);
DROP INDEX events_by_id;
CREATE UNIQUE INDEX events_by_id ON events (conversation_id, event_id);
`;
