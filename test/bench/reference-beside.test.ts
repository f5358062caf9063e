/**
 * The bench's peer (dev/bench/reference-beside.ts): the real reference agent server 1.58.2
 * serves a conversation the bench's generator wrote, once it has the documents it writes
 * itself, and finds the same events as ours on the same files, in the same order, with the
 * same cursors and counts, so the bench compares the two on the same work. (The reference
 * serves each event as its models serialise it, with their defaults filled in, where ours
 * serves the stored bytes: docs/reference-behaviour.md. Pages are compared by their events' ids.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ReferenceBeside, startReferenceBeside } from '../../dev/bench/reference-beside';
import { generateConversation } from '../../src/fixture';
import { type LiveServer, startLiveServer } from '../support/live-server';

const ID = '5eed0000-0000-4000-8000-0000000000be';
const EVENTS = generateConversation({ events: 600, seed: 'reference-beside' });
const LAST_EVENT_ID = EVENTS[EVENTS.length - 1]!.id!;
const MIDDLE_TIMESTAMP = EVENTS[300]!.timestamp!;

let ours: LiveServer;
let reference: ReferenceBeside;
let copyRoot: string;

beforeAll(async () => {
  ours = await startLiveServer([{ id: ID, events: EVENTS }]);
  copyRoot = mkdtempSync(path.join(os.tmpdir(), 'reference-beside-'));
  reference = await startReferenceBeside(ours.root, [{ id: ID, lastEventId: LAST_EVENT_ID }], copyRoot);
}, 240_000);

afterAll(async () => {
  await reference?.stop();
  await ours?.stop();
  if (copyRoot) rmSync(copyRoot, { recursive: true, force: true });
});

async function bothAnswer(pathAndQuery: string): Promise<{ ours: unknown; reference: unknown }> {
  const [fromOurs, fromReference] = await Promise.all([fetch(ours.url + pathAndQuery), fetch(reference.url + pathAndQuery)]);
  expect([fromOurs.status, fromReference.status]).toEqual([200, 200]);
  return { ours: await fromOurs.json(), reference: await fromReference.json() };
}

interface Page {
  items: { id: string }[];
  next_page_id: string | null;
}

/** Both servers' page, as the events' ids and the cursor to the next. */
async function bothPages(
  query: string,
): Promise<{ ours: { ids: string[]; next: string | null }; reference: { ids: string[]; next: string | null } }> {
  const answers = await bothAnswer(`/api/conversations/${ID}/events/search${query === '' ? '' : `?${query}`}`);
  const idsOf = (page: Page) => ({ ids: page.items.map((item) => item.id), next: page.next_page_id });
  return { ours: idsOf(answers.ours as Page), reference: idsOf(answers.reference as Page) };
}

test.each([
  '',
  'limit=100',
  'sort_order=TIMESTAMP_DESC&limit=100',
  'kind=ActionEvent&limit=50',
  'source=user',
  'body=the&limit=100',
  `timestamp__gte=${MIDDLE_TIMESTAMP}&limit=30`,
  `timestamp__lt=${MIDDLE_TIMESTAMP}&sort_order=TIMESTAMP_DESC&limit=30`,
])('search ?%s: the same page from both', async (query) => {
  const pages = await bothPages(query);
  expect(pages.ours.ids.length).toBeGreaterThan(0);
  expect(pages.reference).toEqual(pages.ours);
});

test('every page of the conversation, walked by next_page_id, is the same from both', async () => {
  let pageId: string | null = null;
  let pages = 0;
  do {
    const both = await bothPages(`limit=97${pageId ? `&page_id=${pageId}` : ''}`);
    expect(both.reference).toEqual(both.ours);
    pageId = both.ours.next;
    pages++;
  } while (pageId);
  expect(pages).toBe(Math.ceil(EVENTS.length / 97));
});

test.each(['', 'kind=ObservationEvent', 'source=agent&body=test'])('count ?%s: the same from both', async (query) => {
  const answers = await bothAnswer(`/api/conversations/${ID}/events/count${query === '' ? '' : `?${query}`}`);
  expect(answers.reference).toEqual(answers.ours);
});
