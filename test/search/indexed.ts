/**
 * Index entries for the pure search tests: the payload is the event's id, so a page reads
 * as a list of ids.
 */
import type { EventKind } from '../../src/contract';
import { EventIndex, type IndexedEvent, type SearchCriteria, searchEvents } from '../../src/search';

export interface EntryFields {
  kind?: EventKind;
  source?: string;
  text?: string;
  micros?: number;
}

export function entry(id: string, position: number, fields: EntryFields = {}): IndexedEvent<string> {
  return {
    id,
    kind: fields.kind ?? 'ActionEvent',
    source: 'source' in fields ? fields.source : 'agent',
    micros: 'micros' in fields ? fields.micros : position * 10,
    position,
    text: fields.text,
    payload: id,
  };
}

export function indexOf(entries: readonly IndexedEvent<string>[]): EventIndex<string> {
  const index = new EventIndex<string>();
  for (const event of entries) index.upsert(event);
  return index;
}

export function pageIds(index: EventIndex<string>, criteria: SearchCriteria): { ids: string[]; next: string | null } {
  const page = searchEvents(index, criteria);
  return { ids: index.payloadsOf(page.slots), next: page.nextPageId };
}

/**
 * Every page of a search, following `nextPageId` with the same criteria, as a client
 * that repeats its filters does. Fails on a cursor handed out twice instead of looping.
 */
export function walkAll(index: EventIndex<string>, criteria: Omit<SearchCriteria, 'pageId'>): { ids: string[]; pages: number } {
  const ids: string[] = [];
  const cursors = new Set<string>();
  let pageId: string | undefined;
  let pages = 0;
  for (;;) {
    const page = searchEvents(index, pageId === undefined ? criteria : { ...criteria, pageId });
    pages += 1;
    expect(page.slots.length).toBeLessThanOrEqual(criteria.limit);
    ids.push(...index.payloadsOf(page.slots));
    if (page.nextPageId === null) return { ids, pages };
    expect(page.slots).toHaveLength(criteria.limit);
    expect(cursors.has(page.nextPageId)).toBe(false);
    cursors.add(page.nextPageId);
    pageId = page.nextPageId;
  }
}
