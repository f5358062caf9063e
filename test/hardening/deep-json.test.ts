/**
 * JSON nested thousands of levels deep in the files a conversation holds: a saved state
 * nested beyond what the reference reads is refused for that conversation alone, with a
 * reason in the log; events of any depth are served, exported and zipped whole. Nothing
 * answers 500, closes the socket 1006 or cuts a download.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeConversationState } from '../support/conversation-state';
import { conversationId, eventId, message, stateUpdate } from '../support/events';
import { type LiveServer, liveServerStoreKind, startLiveServer } from '../support/live-server';
import { openTestSocket, socketUrl } from '../support/socket-client';
import { unzipWithPython } from '../support/unzip';

const DEEP_STATE = conversationId(1);
const DEEP_EVENTS = conversationId(2);
const PLAIN = conversationId(3);
const hexOf = (id: string) => id.replaceAll('-', '');

/** `{"a":{"a":...{"a":1}...}}`, `depth` objects deep, as text: no serialiser that recurses can write it. */
function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** A stored state update whose value is `valueJson`, written as the reference names event files. */
function writeStateUpdate(root: string, id: string, index: number, n: number, key: string, valueJson: string): void {
  const event = stateUpdate({ id: eventId(n), timestamp: `2026-11-01T10:00:0${n}.000000` }, key, '__VALUE__');
  const text = JSON.stringify(event).replace('"__VALUE__"', valueJson);
  writeFileSync(path.join(root, hexOf(id), 'events', `event-${String(index).padStart(5, '0')}-${eventId(n)}.json`), text);
}

let server: LiveServer;

beforeAll(async () => {
  const first = message({ id: eventId(1), timestamp: '2026-11-01T10:00:01.000000', source: 'user' }, { text: ['hi'] });
  server = await startLiveServer(
    [
      { id: DEEP_STATE, events: [first] },
      { id: DEEP_EVENTS, events: [first] },
      { id: PLAIN, events: [first] },
    ],
    // As in production: the contract check of responses (on in most tests) re-serialises pages through Express, which recurses.
    { validateResponses: false },
  );
  for (const [n, id] of [DEEP_STATE, DEEP_EVENTS, PLAIN].entries()) {
    writeConversationState(server.root, id, { createdAt: `2026-11-0${n + 1}T10:00:00.000001`, updatedAt: `2026-11-0${n + 1}T10:00:00.000001` });
  }
  writeStateUpdate(server.root, DEEP_EVENTS, 1, 2, 'deep', nested(6_000));
  // A secret deep inside: masking has to reach it, at any depth.
  writeStateUpdate(server.root, DEEP_EVENTS, 2, 3, 'deeper', `{"nested":${nested(10_000)},"api_key":"sk-deep-key-0001"}`);
  const stateFile = path.join(server.root, hexOf(DEEP_STATE), 'base_state.json');
  writeFileSync(stateFile, `{"id":"${DEEP_STATE}","execution_status":"idle","agent":${`{"a":`.repeat(5_000)}1${'}'.repeat(5_000)}}`);
});

afterAll(() => server.stop());

test('a saved state nested 5,000 deep leaves that conversation out of the catalog and nothing else', async () => {
  const search = await server.statusAndBody('/api/conversations/search');
  expect(search.status).toBe(200);
  expect((search.body as { items: { id: string }[] }).items.map((item) => item.id)).toEqual([PLAIN, DEEP_EVENTS]);
  const byIds = await server.statusAndBody(`/api/conversations?ids=${DEEP_STATE}&ids=${PLAIN}`);
  expect(byIds.status).toBe(200);
  expect((byIds.body as unknown[])[0]).toBeNull();
  expect((byIds.body as { id: string }[])[1]!.id).toBe(PLAIN);
  expect(await server.statusAndBody(`/api/conversations/${DEEP_STATE}`)).toEqual({ status: 404, body: { detail: 'Not Found' } });
  const warning = server.logs.map((line) => JSON.parse(line)).find((line) => line.conversation === hexOf(DEEP_STATE));
  expect(warning).toMatchObject({ level: 'warn', message: expect.stringContaining('nests deeper than the reference reads') });
});

test('its socket opens with an empty state and resends its events', async () => {
  const socket = openTestSocket(socketUrl(server.url, DEEP_STATE, 'resend_mode=all'));
  const frames = await socket.framesArrived(2);
  socket.ws.close();
  expect(JSON.parse(frames[0]!)).toMatchObject({ key: 'full_state', value: {} });
  expect(JSON.parse(frames[1]!)).toMatchObject({ id: eventId(1) });
  expect((await socket.closed).code).not.toBe(1006);
});

test('events nested 6,000 and 10,000 deep are served, exported in both formats and zipped whole', async () => {
  const page = await server.get(`/api/conversations/${DEEP_EVENTS}/events/search`);
  expect(page.status).toBe(200);
  expect(page.text).not.toContain('sk-deep-key-0001');
  expect((page.body as { items: unknown[] }).items).toHaveLength(3);
  for (const format of ['jsonl', 'markdown']) {
    const response = await fetch(`${server.url}/api/stored-conversations/${DEEP_EVENTS}/export?format=${format}`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain('sk-deep-key-0001');
    if (format === 'jsonl')
      expect(
        text
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line).id),
      ).toEqual([eventId(1), eventId(2), eventId(3)]);
    else expect(text).toContain('### <a id="event-00000000-0000-4000-8000-000000000003"></a>State: deeper');
  }
  for (const id of [DEEP_EVENTS, DEEP_STATE]) {
    const zip = await fetch(`${server.url}/api/file/download-trajectory/${id}`);
    expect(zip.status).toBe(200);
    const entries = await unzipWithPython(Buffer.from(await zip.arrayBuffer()));
    // A database holds no saved state it refused (docs/reference-behaviour.md, the trajectory download); a directory zips the file as it is.
    const stateKept = id === DEEP_EVENTS || liveServerStoreKind() === 'sqlite';
    expect(entries.has(`${hexOf(id)}/base_state.json`)).toBe(stateKept);
    for (const [, bytes] of entries) expect(bytes.toString('utf8')).not.toContain('sk-deep-key-0001');
  }
});

test('nothing was logged as a failure', () => {
  expect(server.logs.filter((line) => JSON.parse(line).level === 'error')).toEqual([]);
});
