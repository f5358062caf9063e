/**
 * The search requests the benchmark puts under load, each a URL a real client sends, with
 * what its answer must look like (a benchmark of wrong answers measures nothing).
 */
import type { Dataset } from './datasets';
import { parseEventPage } from './http-get';

export interface Scenario {
  /** Stable short name, used in the report and by the targets. */
  readonly name: ScenarioName;
  readonly description: string;
  /** Path and query, as sent. */
  readonly path: string;
  /**
   * When set, the load goes round these paths (`path` is the first), one request each: a
   * different cursor on every request, so no cache of whole answers could make the figure.
   */
  readonly rotatingPaths?: readonly string[];
  /** Throws when a page body is not the expected answer. */
  check(body: Buffer): void;
}

export type ScenarioName =
  | 'first-page'
  | 'first-page-any-cursor'
  | 'deep-page'
  | 'first-page-desc'
  | 'sparse-kind'
  | 'body-no-match'
  | 'narrow-window';

/** Cursors the rotating scenario goes round: enough that consecutive requests of one connection never repeat. */
export const ROTATING_CURSORS = 64;

/** Text no generated message contains, so the body filter must look at every message event. */
const ABSENT_TEXT = 'zq-no-such-phrase-xv';
const SPARSE_KIND = 'ConversationErrorEvent';

/** Path of a conversation's search endpoint with the given query. */
export function searchPath(conversationIdHex: string, query: Record<string, string>): string {
  return `/api/conversations/${conversationIdHex}/events/search?${new URLSearchParams(query).toString()}`;
}

/** The search scenarios over one conversation; `cursorIds` are events spread over it, each with a full page after it. */
export function searchScenarios(dataset: Dataset, cursorIds: readonly string[]): Scenario[] {
  const { conversationIdHex: hex, facts } = dataset;
  const path = (query: Record<string, string>) => searchPath(hex, { limit: '100', ...query });
  const rotating = cursorIds.map((id) => path({ page_id: id }));
  return [
    { name: 'first-page', description: 'first page, limit 100', path: path({}), check: expectItems(100, 'more') },
    {
      name: 'first-page-any-cursor',
      description: `a page of 100 at another of ${cursorIds.length} cursors on every request`,
      path: rotating[0]!,
      rotatingPaths: rotating,
      check: expectItems(100, 'more'),
    },
    {
      name: 'deep-page',
      description: 'page_id 150 events before the end',
      path: path({ page_id: facts.deepPageId }),
      check: expectItems(100, 'more', facts.deepPageId),
    },
    {
      name: 'first-page-desc',
      description: 'first page, TIMESTAMP_DESC',
      path: path({ sort_order: 'TIMESTAMP_DESC' }),
      check: expectItems(100, 'more'),
    },
    { name: 'sparse-kind', description: `kind=${SPARSE_KIND}`, path: path({ kind: SPARSE_KIND }), check: expectSomeItems() },
    { name: 'body-no-match', description: 'body filter matching nothing', path: path({ body: ABSENT_TEXT }), check: expectItems(0, 'last') },
    {
      name: 'narrow-window',
      description: `timestamp window of ${facts.windowEvents} events`,
      path: path({ timestamp__gte: facts.windowGte, timestamp__lt: facts.windowLt }),
      check: expectItems(facts.windowEvents, 'last'),
    },
  ];
}

function expectItems(count: number, next: 'more' | 'last', firstId?: string): (body: Buffer) => void {
  return (body) => {
    const page = parseEventPage(body);
    if (page.items.length !== count) throw new Error(`expected ${count} items, got ${page.items.length}`);
    if ((page.next_page_id !== null) !== (next === 'more'))
      throw new Error(`expected next_page_id ${next === 'more' ? 'set' : 'null'}, got ${page.next_page_id}`);
    if (firstId !== undefined && page.items[0]?.id !== firstId) throw new Error(`expected the page to start at ${firstId}, got ${page.items[0]?.id}`);
  };
}

function expectSomeItems(): (body: Buffer) => void {
  return (body) => {
    if (parseEventPage(body).items.length === 0) throw new Error('expected at least one item, got none');
  };
}
