/**
 * Where each event stands in the order the ingester stored it: the events socket asks for
 * the events stored after the last one it delivered (appendedStatement), one walk of
 * `events_appended`. Rows stored before this migration are numbered in file order; a file
 * rewritten in place keeps its number, as it keeps its index in the directory store.
 */
export const APPEND_ORDER_SCHEMA = `
CREATE SEQUENCE events_ingest_seq AS bigint;
ALTER TABLE events ADD COLUMN ingest_seq bigint;
UPDATE events e SET ingest_seq = numbered.seq
  FROM (SELECT conversation_id, position, row_number() OVER (ORDER BY conversation_id, position) AS seq FROM events) numbered
  WHERE e.conversation_id = numbered.conversation_id AND e.position = numbered.position;
SELECT setval('events_ingest_seq', coalesce((SELECT max(ingest_seq) FROM events), 0) + 1, false);
ALTER TABLE events ALTER COLUMN ingest_seq SET DEFAULT nextval('events_ingest_seq');
ALTER TABLE events ALTER COLUMN ingest_seq SET NOT NULL;
ALTER SEQUENCE events_ingest_seq OWNED BY events.ingest_seq;
CREATE INDEX events_appended ON events (conversation_id, ingest_seq);
`;
