/**
 * The search across conversations (searchStoredEvents) orders every event by timestamp,
 * conversation id, position. The conversation id is copied into each event row (a uuid
 * orders as its hex digits do), set by a trigger from the conversation's row so that
 * every writer fills it, and the ordered indexes below walk that order from a cursor's
 * key for all events, per kind, per source and for message events; `body` uses the
 * trigram index of 0001, whose leading conversation column a query may leave out. The
 * conversation's title (from `meta.json`) is kept beside it, as the directory store shows it.
 */
export const ACROSS_CONVERSATIONS_SCHEMA = `
-- The title meta.json records, copied by the ingester: the list of conversations and each hit show it.
ALTER TABLE conversations ADD COLUMN title text;

ALTER TABLE events ADD COLUMN conversation_uuid uuid;
UPDATE events e SET conversation_uuid = c.hex::uuid FROM conversations c WHERE c.id = e.conversation_id;
ALTER TABLE events ALTER COLUMN conversation_uuid SET NOT NULL;

CREATE OR REPLACE FUNCTION events_conversation_uuid() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.conversation_uuid IS NULL OR TG_OP = 'UPDATE' AND NEW.conversation_id IS DISTINCT FROM OLD.conversation_id THEN
    SELECT hex::uuid INTO NEW.conversation_uuid FROM conversations WHERE id = NEW.conversation_id;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER events_conversation_uuid BEFORE INSERT OR UPDATE ON events
  FOR EACH ROW EXECUTE FUNCTION events_conversation_uuid();

CREATE INDEX events_across ON events (sort_micros, conversation_uuid, position);
CREATE INDEX events_across_by_kind ON events (kind, sort_micros, conversation_uuid, position);
CREATE INDEX events_across_by_source ON events (source, sort_micros, conversation_uuid, position);
CREATE INDEX events_across_messages ON events (sort_micros, conversation_uuid, position) WHERE body_text IS NOT NULL;
`;
