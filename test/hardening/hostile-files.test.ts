/**
 * Files an agent server that cannot be trusted may leave in the conversations directory,
 * read over HTTP by the real server: a named pipe under an event file's or a document's
 * name, JSON nested deeper than any call stack, documents linked out of the root, two
 * event files holding one id. Each is skipped or served by a stated rule; none hangs a
 * request, answers 5xx or stops the other conversations being served.
 * docs/hardening.md lists each case; test/postgres runs this file again on PostgreSQL.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { components } from '../../src/contract';
import { eventFileName, serializeEvent, writeConversation } from '../../src/fixture/layout';
import { MAX_DOCUMENT_BYTES } from '../../src/store/files/document-file';
import { MAX_EVENT_FILE_BYTES } from '../../src/store/files/event-file-reader';
import { writeConversationState } from '../support/conversation-state';
import { conversationId, eventId, message } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';

type EventPage = components['schemas']['EventPage'];

const PIPES = conversationId(61);
const DEEP = conversationId(62);
const LINKED = conversationId(63);
const TWINS = conversationId(64);
const PLAIN = conversationId(65);
const EVENTS_PIPE = conversationId(66);
const LARGE_STATE = conversationId(67);
const SHARED_INDEX = conversationId(68);
const hexOf = (id: string) => id.replaceAll('-', '');
const say = (n: number, text: string, timestamp = `2026-07-01T10:00:${String(n % 60).padStart(2, '0')}`) =>
  message({ id: eventId(n), timestamp, source: 'user' }, { text: [text] });
/** JSON nested `depth` levels deep, written without recursion. */
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

let server: LiveServer;
let outside: string;

beforeAll(async () => {
  outside = mkdtempSync(path.join(os.tmpdir(), 'hostile-files-outside-'));
  server = await startLiveServer([
    { id: PIPES, events: [say(1, 'before the pipe'), say(2, 'after the pipe')] },
    { id: DEEP, events: [say(3, 'beside the deep files')] },
    { id: LINKED, events: [say(4, 'inside the root')] },
    { id: TWINS, events: [say(5, 'first of two'), say(6, 'second'), say(7, 'third')] },
    { id: PLAIN, events: [say(8, 'a plain conversation')] },
    { id: EVENTS_PIPE, events: [say(11, 'its events/ becomes a pipe')] },
    { id: LARGE_STATE, events: [say(12, 'its saved state is padded')] },
    { id: SHARED_INDEX, events: [say(15, 'at index 0'), say(16, 'at index 1')] },
  ]);
  const events = (id: string) => path.join(server.root, hexOf(id), 'events');
  // A named pipe under an event file's name and under meta.json's: opening either for reading would block until a writer comes.
  execFileSync('mkfifo', [path.join(events(PIPES), eventFileName(5, eventId(9)))]);
  rmSync(path.join(server.root, hexOf(PIPES), 'meta.json'), { force: true });
  execFileSync('mkfifo', [path.join(server.root, hexOf(PIPES), 'meta.json')]);
  // A named pipe as a conversation's events/ itself: its events cannot be listed.
  rmSync(events(EVENTS_PIPE), { recursive: true, force: true });
  execFileSync('mkfifo', [events(EVENTS_PIPE)]);
  // A sparse event file longer than any string the runtime holds: it costs its writer no disk.
  const sparse = path.join(events(PLAIN), eventFileName(7, eventId(13)));
  writeFileSync(sparse, '');
  truncateSync(sparse, MAX_EVENT_FILE_BYTES + 1);
  // A saved state padded past the largest document read: valid JSON, listed in the catalog were it read.
  writeConversationState(server.root, LARGE_STATE, { createdAt: '2026-07-01T09:00:00.000001', updatedAt: '2026-07-01T09:00:01.000001' });
  const largeStateFile = path.join(server.root, hexOf(LARGE_STATE), 'base_state.json');
  const state = JSON.parse(readFileSync(largeStateFile, 'utf8'));
  writeFileSync(largeStateFile, JSON.stringify({ ...state, padding: 'x'.repeat(MAX_DOCUMENT_BYTES) }));
  // An event and a saved state nested deeper than a call stack reaches.
  writeFileSync(
    path.join(events(DEEP), eventFileName(1, eventId(10))),
    `{"id":"${eventId(10)}","kind":"PauseEvent","timestamp":"2026-07-01T11:00:00","deep":${nested(6000)}}`,
  );
  writeFileSync(path.join(server.root, hexOf(DEEP), 'base_state.json'), nested(5000));
  // meta.json linked to a file outside the root.
  writeFileSync(path.join(outside, 'meta.json'), JSON.stringify({ title: 'OUTSIDE TITLE' }));
  rmSync(path.join(server.root, hexOf(LINKED), 'meta.json'), { force: true });
  symlinkSync(path.join(outside, 'meta.json'), path.join(server.root, hexOf(LINKED), 'meta.json'));
  // A later file holding the id of an earlier one.
  writeFileSync(
    path.join(events(TWINS), eventFileName(3, eventId(5))),
    serializeEvent(say(5, 'the later file with the first id', '2026-07-01T10:00:09')),
  );
  // A second file at an index one holds already, with an id of its own.
  writeFileSync(path.join(events(SHARED_INDEX), eventFileName(1, eventId(14))), serializeEvent(say(14, 'also at index 1', '2026-07-01T10:00:20')));
});
afterAll(async () => {
  await server.stop();
  rmSync(outside, { recursive: true, force: true });
});

async function walk(id: string): Promise<string[]> {
  const seen: string[] = [];
  let pageId: string | undefined;
  do {
    const response = await server.get(`/api/conversations/${id}/events/search?limit=1${pageId ? `&page_id=${pageId}` : ''}`);
    expect(response.status).toBe(200);
    const page = response.body as EventPage;
    seen.push(...page.items.map((event) => event.id!));
    pageId = page.next_page_id ?? undefined;
  } while (pageId);
  return seen;
}

it('a named pipe under an event file name or meta.json blocks nothing: the listing and every conversation answer', async () => {
  const listing = await server.get('/api/stored-conversations');
  expect(listing.status).toBe(200);
  const listed = (listing.body as { items: { id: string }[] }).items.map((item) => item.id).filter((id) => id !== EVENTS_PIPE && id !== LARGE_STATE);
  expect(listed.sort()).toEqual([PIPES, DEEP, LINKED, TWINS, PLAIN, SHARED_INDEX].sort());
  expect(await walk(PIPES)).toEqual([eventId(1), eventId(2)]);
  expect(await walk(PLAIN)).toEqual([eventId(8)]);
});

it('a named pipe as events/ fails that conversation alone: the listing, the search across and the other exports answer (all were 500)', async () => {
  const own = await server.get(`/api/conversations/${EVENTS_PIPE}/events/search`);
  // Its events cannot be listed: both stores answer an error, and the log names the path (PostgreSQL's from what the ingester recorded).
  expect(own).toMatchObject({ status: 500, body: { detail: 'Internal Server Error', correlation_id: expect.any(String) } });
  const failed = server.logs
    .map((line) => JSON.parse(line))
    .find((line) => line.correlation_id === (own.body as { correlation_id: string }).correlation_id);
  expect(failed?.error).toContain(path.join(hexOf(EVENTS_PIPE), 'events'));
  expect((await server.get('/api/stored-conversations')).status).toBe(200);
  expect((await server.get('/api/stored-conversations/events/search?text=plain')).status).toBe(200);
  for (const format of ['jsonl', 'markdown', 'otlp', 'atif'])
    expect((await server.get(`/api/stored-conversations/${PLAIN}/export?format=${format}`)).status).toBe(200);
  const warnings = server.logs.map((line) => JSON.parse(line)).filter((line) => line.conversation === hexOf(EVENTS_PIPE) && line.level === 'warn');
  expect(warnings).toContainEqual(
    expect.objectContaining({ message: 'conversation not read, the others are', reason: expect.stringContaining('ENOTDIR') }),
  );

  // A directory again, with its event: served again, without a restart.
  rmSync(path.join(server.root, hexOf(EVENTS_PIPE), 'events'));
  writeConversation(server.root, EVENTS_PIPE, [say(11, 'its events/ becomes a pipe')]);
  expect(await walk(EVENTS_PIPE)).toEqual([eventId(11)]);
});

it('an event file longer than any text the runtime decodes is skipped unread, with the reason logged', async () => {
  // It was read whole (a 700 MB one took the server from 415 MB to 1.1 GB) only to fail to decode.
  expect(await walk(PLAIN)).toEqual([eventId(8)]);
  const skipped = server.logs
    .map((line) => JSON.parse(line))
    .filter((line) => line.conversation === hexOf(PLAIN) && line.message === 'event files skipped');
  expect(skipped.map((line) => line.reason)).toContain(`larger than the longest text this runtime decodes (${MAX_EVENT_FILE_BYTES} bytes), not read`);
});

it('a saved state larger than the largest document read is not read: that conversation is left out of the catalog, with the reason logged', async () => {
  // A 300 MB one held every request for 39 s and took the server to 3.8 GB when six catalog searches found it at once.
  const search = await server.get('/api/conversations/search?limit=100');
  expect(search.status).toBe(200);
  expect((search.body as { items: { id: string }[] }).items.map((item) => item.id)).not.toContain(LARGE_STATE);
  expect((await server.get(`/api/conversations/${LARGE_STATE}`)).status).toBe(404);
  expect(await walk(LARGE_STATE)).toEqual([eventId(12)]);
  const reasons = server.logs
    .map((line) => JSON.parse(line))
    .filter((line) => line.conversation === hexOf(LARGE_STATE))
    .map((line) => line.reason);
  expect(reasons).toContain(`larger than ${MAX_DOCUMENT_BYTES} bytes, not read`);
});

it('an event nested deeper than a call stack is served or skipped, never a 5xx; the conversation and its neighbours answer', async () => {
  const page = await server.get(`/api/conversations/${DEEP}/events/search`);
  expect(page.status).toBe(200);
  expect((page.body as EventPage).items.map((event) => event.id)).toContain(eventId(3));
  const across = await server.get('/api/stored-conversations/events/search?text=deep%20files');
  expect(across.status).toBe(200);
  expect(await server.get(`/api/stored-conversations/${DEEP}/export`).then((response) => response.status)).toBe(200);
});

it('a meta.json linked out of the root is not read: its title is not shown', async () => {
  const listing = await server.get('/api/stored-conversations');
  const linked = (listing.body as { items: { id: string; title: string | null }[] }).items.find((item) => item.id === LINKED);
  expect(linked).toMatchObject({ id: LINKED });
  expect(linked!.title).not.toBe('OUTSIDE TITLE');
  expect(JSON.stringify(listing.body)).not.toContain('OUTSIDE TITLE');
});

it('two files with one id: the later is served, and a count and a walk of pages agree', async () => {
  const count = await server.get(`/api/conversations/${TWINS}/events/count`);
  const walked = await walk(TWINS);
  expect(walked).toEqual([eventId(6), eventId(7), eventId(5)]);
  expect(count.body).toBe(walked.length);
  const one = await server.get(`/api/conversations/${TWINS}/events/${eventId(5)}`);
  expect((one.body as { llm_message: { content: { text: string }[] } }).llm_message.content[0]!.text).toBe('the later file with the first id');
});

it('two files at one index: one of them is served, the other found by neither a walk, a count nor its id', async () => {
  const walked = await walk(SHARED_INDEX);
  expect(walked).toHaveLength(2);
  expect(walked[0]).toBe(eventId(15));
  expect([eventId(14), eventId(16)]).toContain(walked[1]);
  const count = await server.get(`/api/conversations/${SHARED_INDEX}/events/count`);
  expect(count.body).toBe(2);
  const unserved = walked[1] === eventId(14) ? eventId(16) : eventId(14);
  expect((await server.get(`/api/conversations/${SHARED_INDEX}/events/${unserved}`)).status).toBe(404);
});
