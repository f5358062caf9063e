import type { SearchQuery } from '../../src/contract';
import type { Exchange } from '../../src/kit/http';
import type { Search } from '../../src/kit/run/search-request';
import { describeIncompleteWalk, walkPages, type WalkEnd } from '../../src/kit/run/walk';

/*
 * Walks over a scripted server: a Search function that answers each page_id from a table,
 * so every way a walk can end is reached without a network.
 */
type Script = Record<string, { status?: number; body: unknown }>;

function scripted(script: Script): Search & { calls: (string | undefined)[] } {
  const calls: (string | undefined)[] = [];
  const search = async (query: SearchQuery) => {
    const key = query.page_id ?? 'first';
    calls.push(query.page_id ?? undefined);
    const { status = 200, body } = script[key] ?? { status: 404, body: { detail: 'no such page in the script' } };
    const bodyText = JSON.stringify(body);
    const exchange: Exchange = {
      seq: calls.length,
      method: 'GET',
      checkId: 'test',
      path: `/?page_id=${key}`,
      url: `http://x/?page_id=${key}`,
      status,
      contentType: 'application/json',
      bodyText,
      bodyLength: bodyText.length,
      json: { ok: true, value: body },
      durationMs: 0,
    };
    const record = body as { items?: unknown; next_page_id?: unknown };
    const page =
      status === 200 && Array.isArray(record.items)
        ? { items: record.items as unknown[], nextPageId: record.next_page_id, hasNextPageIdKey: 'next_page_id' in record }
        : undefined;
    return { ok: true as const, exchange, page };
  };
  return Object.assign(search, { calls });
}

const item = (id: string) => ({ id, kind: 'PauseEvent', timestamp: '2026-06-16T05:39:48.701247' });

const CASES: [string, Script, WalkEnd, number][] = [
  [
    'null ends the walk',
    { first: { body: { items: [item('a')], next_page_id: 'b' } }, b: { body: { items: [item('b')], next_page_id: null } } },
    'null',
    2,
  ],
  ['a missing key ends it too', { first: { body: { items: [item('a')] } } }, 'missing', 1],
  ['"" ends it, noted as such', { first: { body: { items: [item('a')], next_page_id: '' } } }, 'empty-string', 1],
  [
    'a cursor handed out twice is a cycle',
    { first: { body: { items: [item('a')], next_page_id: 'b' } }, b: { body: { items: [item('b')], next_page_id: 'b' } } },
    'cycle',
    2,
  ],
  ['a number is not a cursor', { first: { body: { items: [], next_page_id: 7 } } }, 'bad-cursor', 1],
  ['a 500 stops it', { first: { status: 500, body: { detail: 'boom' } } }, 'not-a-page', 0],
  ['a page without items stops it', { first: { body: { next_page_id: null } } }, 'not-a-page', 0],
];

it.each(CASES)('%s', async (_name, script, end, pages) => {
  const walk = await walkPages(scripted(script), { limit: 1 }, 10);
  expect(walk.end).toBe(end);
  expect(walk.pages).toHaveLength(pages);
});

it('stops at the page cap instead of following cursors forever', async () => {
  const endless: Script = { first: { body: { items: [item('p0')], next_page_id: 'p1' } } };
  for (let i = 1; i < 20; i++) endless[`p${i}`] = { body: { items: [item(`p${i}`)], next_page_id: `p${i + 1}` } };
  const search = scripted(endless);
  const walk = await walkPages(search, {}, 5);
  expect(walk.end).toBe('page-cap');
  expect(search.calls).toEqual([undefined, 'p1', 'p2', 'p3', 'p4']);
  expect(describeIncompleteWalk(walk)).toBe('no last page within 5 pages');
});

it('repeats the filters on every page, with the cursor', async () => {
  const seen: SearchQuery[] = [];
  const inner = scripted({ first: { body: { items: [item('a')], next_page_id: 'b' } }, b: { body: { items: [item('b')], next_page_id: null } } });
  const recording = async (query: SearchQuery) => {
    seen.push(query);
    return inner(query);
  };
  await walkPages(recording, { kind: 'PauseEvent', limit: 1 }, 10);
  expect(seen).toEqual([
    { kind: 'PauseEvent', limit: 1, page_id: undefined },
    { kind: 'PauseEvent', limit: 1, page_id: 'b' },
  ]);
});
