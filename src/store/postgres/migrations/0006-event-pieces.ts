/**
 * The stored bytes of each event over LARGE_EVENT_BYTES again, in pieces of that size, as the
 * SQLite index keeps them: a download reads a large event piece by piece, and a part of a
 * compressed value costs reading the whole of it. Events stored before are cut here.
 */
export const EVENT_PIECES_SCHEMA = `
CREATE TABLE event_pieces (
  conversation_id integer NOT NULL,
  position bigint NOT NULL,
  piece integer NOT NULL,
  bytes bytea NOT NULL,
  PRIMARY KEY (conversation_id, position, piece),
  FOREIGN KEY (conversation_id, position) REFERENCES events (conversation_id, position) ON DELETE CASCADE
);

INSERT INTO event_pieces (conversation_id, position, piece, bytes)
  SELECT e.conversation_id, e.position, p.piece, substring(e.payload FROM p.piece * 1048576 + 1 FOR 1048576)
    FROM events e, generate_series(0, (octet_length(e.payload) - 1) / 1048576) AS p(piece)
    WHERE octet_length(e.payload) > 1048576;
`;
