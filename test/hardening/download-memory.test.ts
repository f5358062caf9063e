/**
 * Memory per download does not grow with the largest event: concurrent exports in every format
 * and trajectory zips of conversations holding very large events, against the real server
 * process, measured by its peak resident memory (VmHWM), a known secret inside the large
 * event too (masked as the event is read). docs/hardening.md has what they peaked at before.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { type ServerProcess, startServerProcess } from '../../dev/soak/server-process';
import { writeConversation } from '../../src/fixture';
import { writeConversationState } from '../support/conversation-state';
import { eventually } from '../support/eventually';
import { action, conversationId, eventId, message, observation } from '../support/events';
import { peakAdded } from '../support/peak-added';
import { unzipWithPython } from '../support/unzip';

const ID = conversationId(1);
/** A second conversation for the trace exports, whose large tool call stays open across a turn. */
const TRACE_ID = conversationId(2);
const LARGE_TEXT_BYTES = 50 * 1024 * 1024;
const CONCURRENT = 8;
/**
 * Downloads at once of the event holding a secret: masking it costs the server's one thread
 * CPU, and four at once already tell a copy per download from none, in half the time of eight.
 */
const MASKED_CONCURRENT = 4;
const MB = 1024 * 1024;
/**
 * What the downloads would add if each held the event once: the bound of the JSON lines and zip
 * downloads, which read it (in pieces, or whole in a few turns), so that their peak does not
 * grow with the number of downloads. What SQLite materialises to read a piece of the stored value
 * and what the allocator keeps of a download's garbage vary from run to run, within it.
 */
const A_COPY_PER_DOWNLOAD = CONCURRENT * LARGE_TEXT_BYTES;
const LINE = 'drwxr-xr-x  2 agent agent 4096 Nov 26 10:00 node_modules/some-package/dist/\n';
const LARGE_TEXT = LINE.repeat(Math.ceil(LARGE_TEXT_BYTES / LINE.length));

/** A third conversation, whose large event holds a known secret of its saved state. */
const SECRET_ID = conversationId(3);
const SECRET = 'registry-plain-token-0001';
const MASK = '**********';
const SECRET_TEXT = `${LARGE_TEXT.slice(0, LARGE_TEXT.length / 2)}${SECRET}${LARGE_TEXT.slice(LARGE_TEXT.length / 2)}`;

const LARGE_CALL = ((call) => ({ ...call, tool_call: { ...call.tool_call, arguments: JSON.stringify({ thought: LARGE_TEXT }) } }))(
  action({ id: eventId(4), timestamp: '2026-11-01T10:00:04.000000' }, 'Write it all down.'),
);

let root: string;
let server: ServerProcess;

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'download-memory-'));
  writeConversation(root, ID, [
    message({ id: eventId(1), timestamp: '2026-11-01T10:00:01.000000', source: 'user' }, { text: ['List everything.'] }),
    observation({ id: eventId(2), timestamp: '2026-11-01T10:00:02.000000' }, LARGE_TEXT),
    message({ id: eventId(3), timestamp: '2026-11-01T10:00:03.000000', source: 'agent' }, { text: ['That was long.'] }),
  ]);
  writeConversation(root, TRACE_ID, [
    message({ id: eventId(1), timestamp: '2026-11-01T10:00:01.000000', source: 'user' }, { text: ['Write everything down.'] }),
    // A tool call whose arguments are as large as its output, answered only by the next event:
    // OTLP and ATIF hold an open call's arguments until then, past the turn that read them.
    LARGE_CALL,
    {
      ...observation({ id: eventId(5), timestamp: '2026-11-01T10:00:05.000000' }, LARGE_TEXT),
      tool_call_id: LARGE_CALL.tool_call_id!,
      action_id: LARGE_CALL.id!,
    },
    message({ id: eventId(6), timestamp: '2026-11-01T10:00:06.000000', source: 'agent' }, { text: ['That was long.'] }),
  ]);
  writeConversation(root, SECRET_ID, [
    message({ id: eventId(1), timestamp: '2026-11-01T10:00:01.000000', source: 'user' }, { text: ['Print the token.'] }),
    observation({ id: eventId(2), timestamp: '2026-11-01T10:00:02.000000' }, SECRET_TEXT),
    message({ id: eventId(3), timestamp: '2026-11-01T10:00:03.000000', source: 'agent' }, { text: ['That was long.'] }),
  ]);
  writeConversationState(root, SECRET_ID, { createdAt: '2026-11-01T10:00:00.000001', updatedAt: '2026-11-01T10:00:03.000001', title: 'Secret' });
  const stateFile = path.join(root, SECRET_ID.replaceAll('-', ''), 'base_state.json');
  const state = JSON.parse(readFileSync(stateFile, 'utf8'));
  state.secret_registry.secret_sources.TOKEN = { kind: 'StaticSecret', value: SECRET, description: 'Token' };
  writeFileSync(stateFile, JSON.stringify(state, null, 2));
  server = await startServerProcess({ conversationsPath: root });
  // The text index is filled behind the stored rows, and filling it for the large event takes
  // memory of its own: the exports are measured once it is complete, so their peak is theirs.
  await eventually(() => expect(server.stderr.some((line) => line.includes('"text index built"'))).toBe(true), { withinMs: 30_000 });
});

afterAll(async () => {
  await server?.stop();
  rmSync(root, { recursive: true, force: true });
});

type Format = 'markdown' | 'jsonl' | 'otlp' | 'atif' | 'zip';

/**
 * One download on a connection of its own. These tests parse bodies of 50 MB, which holds
 * this thread for seconds; meanwhile the server closes the connections fetch keeps alive,
 * and fetch handed one of them to the next download, which was reset (`read ECONNRESET`,
 * once in a loaded run of the suite).
 */
function get(url: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        // A response cut by the server ends in 'error' (aborted), never in 'end'.
        response.on('error', reject);
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

/**
 * Eight concurrent exports, taking the formats in turn: their bodies, and what they added to
 * what was resident before them at most during them (peakAdded, against `bound`).
 */
async function concurrentExports(formats: Format[], bound: number, id = ID, concurrent = CONCURRENT): Promise<{ bodies: Buffer[]; added: number }> {
  const address = (format: Format) =>
    format === 'zip' ? `/api/file/download-trajectory/${id}` : `/api/stored-conversations/${id}/export?format=${format}`;
  const download = async (format: Format) => {
    const { status, body } = await get(`${server.url}${address(format)}`);
    expect(status).toBe(200);
    return body;
  };
  // One export of each format runs alone first, and the peak starts again after it: what SQLite
  // caches of the stored pages and what the allocator keeps after one download are there
  // before the measure, so the peak shows what eight at once add, which is what grows with the event.
  for (const format of formats) await download(format);
  const { result, added } = await peakAdded(server.pid, `download memory, ${formats.join(' and ')} with ${concurrent} exports`, bound, () =>
    Promise.all(Array.from({ length: concurrent }, (_, turn) => download(formats[turn % formats.length]!))),
  );
  return { bodies: result, added };
}

test('eight concurrent Markdown exports of a conversation with one 50 MB event stay within bounded memory', async () => {
  // The document shows the large event by its size: its bytes are not read, not even one copy at a time.
  const bound = LARGE_TEXT_BYTES;
  const { bodies, added } = await concurrentExports(['markdown'], bound);
  for (const text of bodies.map(String)) {
    expect(text).toContain('That was long.');
    expect(text).toMatch(/ObservationEvent \(50\.\d MB, not shown\)/);
  }
  expect(added).toBeLessThan(bound);
});

test('eight concurrent JSON lines exports of it, each with the event whole, stay within bounded memory', async () => {
  // Sent in pieces as read: what stays is the garbage of a few pieces, not a copy per export.
  const bound = A_COPY_PER_DOWNLOAD;
  const { bodies, added } = await concurrentExports(['jsonl'], bound);
  for (const text of bodies.map(String)) {
    const lines = text.split('\n');
    expect(lines).toHaveLength(4);
    expect(JSON.parse(lines[1]!).observation.content[0].text).toHaveLength(LARGE_TEXT.length);
  }
  expect(added).toBeLessThan(bound);
});

test('eight concurrent trajectory zips of it stay within bounded memory', async () => {
  // A large file with nothing to mask is compressed as it is read, in pieces: what stays is the
  // garbage of pieces not yet collected (a clean-clone run of the suite measured two copies'
  // worth), not a copy per download.
  const bound = 3 * LARGE_TEXT_BYTES;
  const { bodies, added } = await concurrentExports(['zip'], bound);
  // Every download is the same archive, which Python's zipfile opens with the large event whole.
  for (const archive of bodies) expect(archive.equals(bodies[0]!)).toBe(true);
  const entries = await unzipWithPython(bodies[0]!);
  const large = [...entries.entries()].find(([name]) => name.includes(`event-00001-`));
  expect(JSON.parse(String(large![1])).observation.content[0].text).toHaveLength(LARGE_TEXT.length);
  expect(added).toBeLessThan(bound);
});

test('four concurrent JSON lines exports of a 50 MB event holding a known secret, each with the event masked, stay within bounded memory', async () => {
  // Masked as its pieces are read: the event is no more read whole than when it holds nothing to mask.
  const bound = MASKED_CONCURRENT * LARGE_TEXT_BYTES;
  const { bodies, added } = await concurrentExports(['jsonl'], bound, SECRET_ID, MASKED_CONCURRENT);
  for (const text of bodies.map(String)) {
    const lines = text.split('\n');
    expect(lines).toHaveLength(4);
    expect(JSON.parse(lines[1]!).observation.content[0].text).toBe(SECRET_TEXT.replace(SECRET, MASK));
  }
  expect(added).toBeLessThan(bound);
});

test('four concurrent trajectory zips of the event holding a known secret stay within bounded memory', async () => {
  // Masked and compressed as it is read, as the zip of the event with nothing to mask.
  const bound = 3 * LARGE_TEXT_BYTES;
  const { bodies, added } = await concurrentExports(['zip'], bound, SECRET_ID, MASKED_CONCURRENT);
  for (const archive of bodies) expect(archive.equals(bodies[0]!)).toBe(true);
  const entries = await unzipWithPython(bodies[0]!);
  const large = [...entries.entries()].find(([name]) => name.includes(`event-00001-`));
  expect(JSON.parse(String(large![1])).observation.content[0].text).toBe(SECRET_TEXT.replace(SECRET, MASK));
  expect(added).toBeLessThan(bound);
});

test('eight concurrent OTLP and ATIF exports of a conversation with a 50 MB tool call and its 50 MB output stay within bounded memory', async () => {
  // A large event is read in pieces with its long texts cut as they are read: no export holds it whole.
  const bound = A_COPY_PER_DOWNLOAD;
  const { bodies, added } = await concurrentExports(['otlp', 'atif'], bound, TRACE_ID);
  for (const text of bodies.map(String)) {
    // The long texts are cut to what a trace carries, saying so; the rest is whole.
    expect(text).toContain('more characters not carried: the JSON lines export has this event whole');
    expect(text).toContain('That was long.');
    expect(text.length).toBeLessThan(4 * MB);
  }
  expect(added).toBeLessThan(bound);
});
