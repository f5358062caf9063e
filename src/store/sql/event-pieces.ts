/**
 * Events over LARGE_EVENT_BYTES are stored again in pieces (event_pieces, in both schemas),
 * so that a download reads such an event a piece at a time: the statements that write and
 * remove the pieces, and the reading of them, checked against the version of the event.
 */
import { LARGE_EVENT_BYTES } from '../event-store';
import type { SqlDialect } from './dialect';
import { Parameters, type Statement } from './statement';

/** Which stored version of an event a piece is read from: the ingester replaces an event's row only when its file's size or time changed. */
export interface EventVersion {
  conversationId: number;
  position: number;
  fileSize: string;
  fileModifiedMs: number;
}

/**
 * Piece `piece` (from 0) of that version of an event's stored bytes (event_pieces): no row
 * when the event has no such piece, or that version is no longer stored.
 */
export function eventPieceStatement(dialect: SqlDialect, version: EventVersion, piece: number): Statement {
  const parameters = new Parameters(dialect);
  const text = `SELECT ${dialect.payload('p.bytes', 'bytea')} FROM events e
    JOIN event_pieces p ON p.conversation_id = e.conversation_id AND p.position = e.position
    WHERE e.conversation_id = ${parameters.add(version.conversationId)} AND e.position = ${parameters.bigint(String(version.position))}
      AND e.file_size = ${parameters.bigint(version.fileSize)} AND e.file_modified_ms = ${parameters.add(version.fileModifiedMs)}
      AND p.piece = ${parameters.add(piece)}`;
  return { text, values: parameters.values };
}

/** The size of the pieces an event over LARGE_EVENT_BYTES is stored in again (event_pieces). */
export const EVENT_PIECE_BYTES = LARGE_EVENT_BYTES;

/** The statements that store an event's bytes in pieces once its row is stored: none for one of at most LARGE_EVENT_BYTES. */
export function eventPieceInserts(dialect: SqlDialect, conversationId: number, position: number, payload: Buffer): Statement[] {
  const statements: Statement[] = [];
  if (payload.length <= LARGE_EVENT_BYTES) return statements;
  for (let piece = 0; piece * EVENT_PIECE_BYTES < payload.length; piece++) {
    const parameters = new Parameters(dialect);
    const bytes = payload.subarray(piece * EVENT_PIECE_BYTES, (piece + 1) * EVENT_PIECE_BYTES);
    statements.push({
      text: `INSERT INTO event_pieces (conversation_id, position, piece, bytes)
        VALUES (${parameters.add(conversationId)}, ${parameters.bigint(String(position))}, ${parameters.add(piece)}, ${parameters.add(bytes)})`,
      values: parameters.values,
    });
  }
  return statements;
}

/** Removes the stored pieces of the events at these positions, whose rows stay to be replaced. */
export function eventPiecesRemoval(dialect: SqlDialect, conversationId: number, positions: readonly number[]): Statement {
  const parameters = new Parameters(dialect);
  const list = parameters.textList('CAST(position AS TEXT)', positions.map(String));
  return { text: `DELETE FROM event_pieces WHERE conversation_id = ${parameters.add(conversationId)} AND ${list}`, values: parameters.values };
}

/**
 * The stored bytes of that version of an event of `size` bytes, piece by piece as they are
 * taken, each read with `rows`. Fails, rather than ends, when that version is no longer
 * stored, so no piece of another version follows.
 */
export async function* storedEventPieces(
  rows: (statement: Statement) => Promise<{ payload: Buffer }[]>,
  dialect: SqlDialect,
  version: EventVersion,
  size: number,
): AsyncGenerator<Buffer> {
  let read = 0;
  for (let piece = 0; read < size; piece++) {
    const bytes = (await rows(eventPieceStatement(dialect, version, piece)))[0]?.payload;
    if (bytes === undefined || bytes.length === 0 || read + bytes.length > size)
      throw new Error('An event of the conversation was removed or replaced while it was being exported');
    read += bytes.length;
    yield bytes;
  }
}
