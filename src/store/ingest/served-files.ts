/**
 * Which of a conversation's event files are served, as the ingester (ingester.ts) decides
 * batch by batch against what the database holds: of files sharing an index the first read
 * is served, and of files holding one event id the later (higher index), so a count and a
 * walk of pages agree. The others are skipped, each with its reason.
 */
import path from 'node:path';
import type { EventFileName } from '../files/event-file-name';
import { versionOfPath } from '../files/event-file-reader';
import type { DecodedFile } from './event-file-decoder';
import type { EventRow, Unserved } from './event-row';

export interface StoredFile {
  name: string;
  eventId: string;
  size: number;
  modifiedMs: number;
}

/**
 * The files the database holds of a conversation, by position, and which position holds
 * each event id (the database holds one per id: the ingester stores no other, and the
 * unique index on conversation and event id holds it to that once built, schema.ts), so a
 * batch finds the stored holders of its ids without going through the list.
 */
export class StoredFiles {
  private readonly byPosition = new Map<number, StoredFile>();
  private readonly positionOfId = new Map<string, number>();

  get(position: number): StoredFile | undefined {
    return this.byPosition.get(position);
  }

  has(position: number): boolean {
    return this.byPosition.has(position);
  }

  get size(): number {
    return this.byPosition.size;
  }

  /** The position of the stored event with this id. */
  holderOf(eventId: string): number | undefined {
    return this.positionOfId.get(eventId);
  }

  set(position: number, file: StoredFile): void {
    this.delete(position);
    this.byPosition.set(position, file);
    this.positionOfId.set(file.eventId, position);
  }

  delete(position: number): void {
    const file = this.byPosition.get(position);
    if (!file) return;
    this.byPosition.delete(position);
    if (this.positionOfId.get(file.eventId) === position) this.positionOfId.delete(file.eventId);
  }

  [Symbol.iterator](): IterableIterator<[number, StoredFile]> {
    return this.byPosition.entries();
  }
}

export interface SkippedFile {
  name: string;
  position: number;
  because: Unserved;
  reason: string;
  size: number;
  modifiedMs: number;
}

export interface Batch {
  rows: EventRow[];
  skipped: SkippedFile[];
  read: number;
  /** Positions of stored events whose id a later file of this batch holds. */
  displaced?: number[];
}

/** What the rules read of a conversation: where its files are, and what the database holds of them. */
export interface ConversationFiles {
  eventsDirectory: string;
  stored: StoredFiles;
}

/**
 * The batch to write of decoded files. Which files are served is decided here, against
 * what the database holds once the batch before is written: of files sharing an index,
 * the first read is served; of files holding one event id, the later (resolveDuplicateIds).
 */
export function batchOf(conversation: ConversationFiles, files: EventFileName[], decoded: DecodedFile[]): Batch {
  const batch: Batch = { rows: [], skipped: [], read: files.length };
  const claimed = new Set<number>();
  for (const [at, file] of files.entries()) {
    const skip = (because: Unserved, reason: string) => skippedFile(path.join(conversation.eventsDirectory, file.name), file, because, reason);
    const storedName = conversation.stored.get(file.position)?.name;
    if ((storedName !== undefined && storedName !== file.name) || claimed.has(file.position)) {
      batch.skipped.push(skip('broken', `index ${file.position} is already served from another event file`));
      continue;
    }
    const result = decoded[at]!;
    if (result.kind === 'gone') continue;
    if (result.kind === 'row') {
      batch.rows.push(result.row);
      claimed.add(file.position);
    } else {
      batch.skipped.push(skip(result.kind === 'unserved' ? result.because : 'broken', result.reason));
    }
  }
  resolveDuplicateIds(conversation, batch);
  return batch;
}

/**
 * One event per id: of files holding the same id the one with the higher index is served
 * (the later write), the other is skipped, whether both are in this batch or one is stored.
 */
function resolveDuplicateIds(conversation: ConversationFiles, batch: Batch): void {
  const winners = new Map<string, EventRow>();
  for (const row of batch.rows) {
    const other = winners.get(row.eventId);
    if (!other || other.position < row.position) winners.set(row.eventId, row);
  }
  const kept: EventRow[] = [];
  const inBatch = new Set(batch.rows.map((row) => row.position));
  batch.displaced = [];
  for (const row of batch.rows) {
    const winner = winners.get(row.eventId)!;
    const storedPosition = conversation.stored.holderOf(row.eventId);
    const storedElsewhere = storedPosition !== undefined && storedPosition !== row.position && !inBatch.has(storedPosition);
    if (winner !== row || (storedElsewhere && storedPosition! > row.position)) {
      const servedFrom = winner !== row ? winner.fileName : conversation.stored.get(storedPosition!)!.name;
      batch.skipped.push({
        ...skippedFile(
          path.join(conversation.eventsDirectory, row.fileName),
          { name: row.fileName, position: row.position, id: row.eventId },
          'broken',
          '',
        ),
        reason: `event id ${row.eventId} is served from ${servedFrom}, written later`,
      });
      continue;
    }
    if (storedElsewhere) {
      const loser = conversation.stored.get(storedPosition!)!;
      batch.displaced.push(storedPosition!);
      batch.skipped.push({
        ...skippedFile(
          path.join(conversation.eventsDirectory, loser.name),
          { name: loser.name, position: storedPosition!, id: row.eventId },
          'broken',
          '',
        ),
        reason: `event id ${row.eventId} is served from ${row.fileName}, written later`,
      });
    }
    kept.push(row);
  }
  batch.rows = kept;
}

/** A file not served, with the version it has now: a look reads it again once that changes. */
function skippedFile(filePath: string, file: EventFileName, because: Unserved, reason: string): SkippedFile {
  const version = versionOfPath(filePath);
  return { name: file.name, position: file.position, because, reason, size: version?.size ?? -1, modifiedMs: version?.modifiedMs ?? -1 };
}
