/**
 * Fills the trigram index (schema.ts's events_text) behind the stored rows. Indexing an
 * event's text costs several times what storing its row does, so the ingester stores rows
 * only, and the index is filled from them afterwards, a step at a time, in order of row id:
 * a first start serves pages and searches across conversations without waiting for it. The
 * index holds exactly the rows up to events_text_mark (the mark moves in the transaction
 * that indexes them), and `body` and `text` check the rows past it one by one (dialect.ts),
 * so answers are exact whatever the index has caught up with.
 */
import type { SqlDatabase } from '../sql/database';

/** Indexes up to `rows` rows past the mark, in one transaction; false when none were left. */
export function indexTextStep(database: SqlDatabase, rows: number): Promise<boolean> {
  return database.transaction(async (writer) => {
    const [mark] = await writer.rows<{ through_row_id: number }>({ text: 'SELECT through_row_id FROM events_text_mark', values: [] });
    const from = mark?.through_row_id ?? 0;
    const [step] = await writer.rows<{ last: number | null }>({
      text: 'SELECT max(row_id) AS last FROM (SELECT row_id FROM events WHERE row_id > ?1 ORDER BY row_id LIMIT ?2)',
      values: [from, rows],
    });
    const last = step?.last ?? null;
    if (last === null) return false;
    await writer.run({
      text: `INSERT INTO events_text (rowid, body_text, search_text)
        SELECT row_id, body_text, search_text FROM events WHERE row_id > ?1 AND row_id <= ?2`,
      values: [from, last],
    });
    await writer.run({ text: 'UPDATE events_text_mark SET through_row_id = ?1', values: [last] });
    return true;
  });
}
