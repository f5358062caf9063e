/**
 * The hostile shapes that downloads once read whole, over HTTP against the real server
 * process, each with its bytes masked and, for one shape per download path, the server's peak
 * memory (VmHWM) while two download it at once:
 *
 * - a large event whose size is in its structure (many small text parts), for the traces;
 * - a large event with more MCP credentials whose `strategy` comes after their `value` than a
 *   first reading notes, for the JSON lines export (and the zip and the traces);
 * - a large JSON lines file in the conversation's directory holding secrets, and a large file
 *   that is not UTF-8 holding a known secret, for the trajectory zip.
 *
 * docs/hardening.md has what they peaked at before.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ServerProcess, startServerProcess } from '../../dev/soak/server-process';
import { maskedContent } from '../../src/catalog/trajectory-archive';
import { serializeEvent, writeConversation } from '../../src/fixture';
import { KnownSecrets, maskedCopy } from '../../src/secrets';
import { LATE_CREDENTIALS } from '../../src/secrets/masked-json-stream';
import { writeConversationState } from '../support/conversation-state';
import { eventually } from '../support/eventually';
import { action, conversationId, eventId, message, stateUpdate } from '../support/events';
import { peakAdded } from '../support/peak-added';
import { unzipWithPython } from '../support/unzip';

const MB = 1024 * 1024;
const MASK = '**********';
/** Held in clear by each conversation's saved state, so a known secret of it. */
const SECRET = 'registry-plain-token-0001';
const KNOWN = new KnownSecrets([SECRET]);
/** Downloads at once: two tell a copy per download from none, in the time the suite can spare. */
const CONCURRENT = 2;

const stamp = (n: number) => ({ id: eventId(n), timestamp: `2026-11-01T10:00:${String(n).padStart(2, '0')}.000000` });

/** A trace's conversation: a tool call answered by an observation of many small text parts (30 MB), its names after them. */
const STRUCTURE_ID = conversationId(1);
const CALL = action(stamp(2), 'Read every line.');
const PART_COUNT = 300_000;
const part = (index: number) => `line ${String(index).padStart(6, '0')}: ${'s'.repeat(60)}${index === 5 ? ` ${SECRET}` : ''}`;
const STRUCTURE_EVENT = {
  ...stamp(3),
  // The observation first, so every member the trace reads comes after what it leaves out.
  observation: { content: Array.from({ length: PART_COUNT }, (_, index) => ({ type: 'text', text: part(index) })), kind: 'ThinkObservation' },
  tool_name: 'think',
  tool_call_id: CALL.tool_call_id,
  action_id: CALL.id,
  kind: 'ObservationEvent',
};
/** An observation with no text, shown as its JSON: a credential whose strategy comes after many small strings the trace leaves out. */
const CREDENTIAL_VALUE = 'structure-credential-0002';
const CREDENTIAL_CALL = action(stamp(4), 'Authenticate.');
const CREDENTIAL_EVENT = {
  ...stamp(5),
  observation: {
    content: [],
    auth: { value: CREDENTIAL_VALUE, scopes: Array.from({ length: 200_000 }, (_, index) => `scope-${index}`), strategy: 'bearer' },
    kind: 'ThinkObservation',
  },
  tool_name: 'think',
  tool_call_id: CREDENTIAL_CALL.tool_call_id,
  action_id: CREDENTIAL_CALL.id,
  kind: 'ObservationEvent',
};

/** A conversation whose large event (30 MB) holds more late credentials than a reading notes, between two ordinary `value`s. */
const CREDENTIALS_ID = conversationId(2);
const LATE_COUNT = LATE_CREDENTIALS + 1000;
const CREDENTIALS_EVENT = stateUpdate(stamp(2), 'mcp_credentials', {
  before: { value: 'ordinary-before' },
  credentials: Array.from({ length: LATE_COUNT }, (_, index) => ({ value: `late-credential-${index}`, strategy: 'bearer' })),
  after: { value: 'ordinary-after' },
  notes: `${'n'.repeat(15 * MB)}${SECRET}${'m'.repeat(15 * MB)}`,
});

/** A conversation whose directory holds a large JSON lines file and a large file of bytes that are not UTF-8, each holding secrets. */
const FILES_ID = conversationId(3);
const FILES_HEX = FILES_ID.replaceAll('-', '');
const JSON_LINES = (() => {
  const lines: string[] = [];
  for (let index = 0; index < 200_000; index++)
    lines.push(
      index % 1000 === 7
        ? JSON.stringify({ n: index, api_key: `sk-line-key-${index}`, text: `echo ${SECRET}` })
        : JSON.stringify({ n: index, text: `step ${index} ${'t'.repeat(80)}` }),
    );
  lines.push(`not JSON, holding ${SECRET} in clear`);
  // Lines longer than one held whole: JSON with a secret field and the known secret, then bytes that are not JSON.
  lines.push(JSON.stringify({ long: 'l'.repeat(2 * MB), headers: { Authorization: 'Bearer line-header-0003' }, echo: SECRET }));
  lines.push(`${'x'.repeat(MB + 3)}${SECRET}${'y'.repeat(MB)} not JSON`);
  lines.push(JSON.stringify({ last: SECRET, credentials: [{ value: 'line-credential-0004', strategy: 'bearer' }] }));
  // The last line ends without a line feed.
  return Buffer.from(lines.join('\n'));
})();
/** Bytes that are not UTF-8, with the known secret at three places, one across the cut between two pieces of a reading. */
const BINARY = (() => {
  // Filled in place, not from an array of as many numbers, which takes seconds to build.
  const bytes = Buffer.allocUnsafe(24 * MB);
  for (let index = 0; index < bytes.length; index++) bytes[index] = 0x80 + ((index * 7919) % 128);
  for (const at of [1000, MB - 7, 20 * MB]) bytes.write(SECRET, at, 'latin1');
  return bytes;
})();
const SMALL_BINARY = (() => {
  const bytes = Buffer.from(Array.from({ length: 64 * 1024 }, (_, index) => 0xc0 + (index % 64)));
  bytes.write(SECRET, 4000, 'latin1');
  return bytes;
})();

let root: string;
let server: ServerProcess;

function withKnownSecret(id: string, title: string): void {
  writeConversationState(root, id, { createdAt: '2026-11-01T10:00:00.000001', updatedAt: '2026-11-01T10:00:09.000001', title });
  const stateFile = path.join(root, id.replaceAll('-', ''), 'base_state.json');
  const state = JSON.parse(readFileSync(stateFile, 'utf8'));
  state.secret_registry.secret_sources.TOKEN = { kind: 'StaticSecret', value: SECRET, description: 'Token' };
  writeFileSync(stateFile, JSON.stringify(state, null, 2));
}

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'hostile-downloads-'));
  const opening = message({ ...stamp(1), source: 'user' }, { text: ['Go.'] });
  const closing = message({ ...stamp(9), source: 'agent' }, { text: ['Done.'] });
  writeConversation(root, STRUCTURE_ID, [opening, CALL, STRUCTURE_EVENT, CREDENTIAL_CALL, CREDENTIAL_EVENT, closing] as never);
  writeConversation(root, CREDENTIALS_ID, [opening, CREDENTIALS_EVENT, closing]);
  writeConversation(root, FILES_ID, [opening, closing]);
  for (const [id, title] of [
    [STRUCTURE_ID, 'Structure'],
    [CREDENTIALS_ID, 'Credentials'],
    [FILES_ID, 'Files'],
  ] as const)
    withKnownSecret(id, title);
  writeFileSync(path.join(root, FILES_HEX, 'agent-log.jsonl'), JSON_LINES);
  writeFileSync(path.join(root, FILES_HEX, 'screenshot.bin'), BINARY);
  writeFileSync(path.join(root, FILES_HEX, 'small.bin'), SMALL_BINARY);
  server = await startServerProcess({ conversationsPath: root });
  // The exports are measured once the text index is complete, so their peak is theirs.
  await eventually(() => expect(server.stderr.some((line) => line.includes('"text index built"'))).toBe(true), { withinMs: 120_000 });
});

afterAll(async () => {
  await server?.stop();
  rmSync(root, { recursive: true, force: true });
});

async function download(address: string): Promise<Buffer> {
  const response = await fetch(`${server.url}${address}`);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

const exportOf = (id: string, format: string) => `/api/stored-conversations/${id}/export?format=${format}`;
const zipOf = (id: string) => `/api/file/download-trajectory/${id}`;

/** Downloads at once, after one alone (what caches and the allocator keep of it is there before the measure): their bodies and the peak they added (peakAdded). */
async function concurrently(addresses: string[], bound: number): Promise<{ bodies: Buffer[]; added: number }> {
  for (const address of new Set(addresses)) await download(address);
  const { result, added } = await peakAdded(server.pid, `hostile downloads, ${addresses.join(' and ')}`, bound, () =>
    Promise.all(addresses.map(download)),
  );
  return { bodies: result, added };
}

type Attributes = { key: string; value: { stringValue?: string } }[];
const attribute = (attributes: Attributes, key: string) => attributes.find((item) => item.key === key)?.value.stringValue;

describe('a large event whose size is in its structure', () => {
  const EVENT_BYTES = Buffer.byteLength(serializeEvent(STRUCTURE_EVENT as never));

  test('two OTLP and ATIF exports at once read it in bounded memory, with what the trace reads and no secret', async () => {
    expect(EVENT_BYTES).toBeGreaterThan(25 * MB);
    // Read whole and parsed, the two exports added six copies' worth of the event (docs/hardening.md); now what each
    // parses is bounded (below), and what is added is the garbage of the pieces read, one to three copies' worth.
    const bound = 5 * EVENT_BYTES;
    const { bodies, added } = await concurrently([exportOf(STRUCTURE_ID, 'otlp'), exportOf(STRUCTURE_ID, 'atif')], bound);
    for (const body of bodies) {
      const text = String(body);
      for (const clear of [SECRET, CREDENTIAL_VALUE]) expect(text.includes(clear)).toBe(false);
      expect(text.length).toBeLessThan(4 * MB);
    }
    const spans = JSON.parse(String(bodies[0])).resourceSpans[0].scopeSpans[0].spans as { name: string; attributes: Attributes }[];
    const tools = spans.filter((span) => span.name === 'execute_tool think');
    // The result is matched to its call by a member that came after everything left out.
    const result = tools.map((span) => attribute(span.attributes, 'gen_ai.tool.call.result'));
    const expected = Array.from({ length: 10 }, (_, index) => part(index))
      .join('\n')
      .replace(SECRET, MASK);
    expect(result[0]!.startsWith(expected)).toBe(true);
    expect(result[0]).toContain('more characters not carried');
    // The credential's value is masked though its strategy was among what the trace left out.
    expect(result[1]).toContain(`"auth":{"value":"${MASK}","scopes":["scope-0",`);
    const steps = JSON.parse(String(bodies[1])).steps as { observation?: { results: { source_call_id: string; content: string }[] } }[];
    const results = steps.flatMap((step) => step.observation?.results ?? []);
    expect(results.map((item) => item.source_call_id)).toEqual([CALL.tool_call_id, CREDENTIAL_CALL.tool_call_id]);
    expect(results[0]!.content.startsWith(expected)).toBe(true);
    expect(added).toBeLessThan(bound);
  });
});

describe('a large event with more credentials whose strategy comes after their value than a reading notes', () => {
  const walked = maskedCopy(CREDENTIALS_EVENT, KNOWN).value as unknown as { value: Record<string, unknown> };
  const CLEAR = [SECRET, 'late-credential-', 'ordinary-after'];

  test('two JSON lines exports at once mask every credential, and every value after them, in bounded memory', async () => {
    const bound = CONCURRENT * Buffer.byteLength(serializeEvent(CREDENTIALS_EVENT));
    const { bodies, added } = await concurrently([exportOf(CREDENTIALS_ID, 'jsonl'), exportOf(CREDENTIALS_ID, 'jsonl')], bound);
    for (const body of bodies) {
      const lines = String(body).split('\n');
      expect(lines).toHaveLength(4);
      for (const clear of CLEAR) expect(lines[1]!.includes(clear)).toBe(false);
      // The walk of the parsed event, but for the ordinary value after the credentials: masked too, the safe way.
      expect(JSON.parse(lines[1]!)).toEqual({ ...walked, value: { ...walked.value, after: { value: MASK } } });
      expect(JSON.parse(lines[1]!).value.before).toEqual({ value: 'ordinary-before' });
    }
    expect(added).toBeLessThan(bound);
  });

  test('the zip and the traces have it masked too', async () => {
    const entries = await unzipWithPython(await download(zipOf(CREDENTIALS_ID)));
    const [file] = [...entries.entries()].filter(([name]) => name.includes('/events/event-00001-')).map(([, bytes]) => String(bytes));
    for (const clear of CLEAR) expect(file!.includes(clear)).toBe(false);
    expect(JSON.parse(file!)).toEqual({ ...walked, value: { ...walked.value, after: { value: MASK } } });
    for (const format of ['otlp', 'atif']) {
      const text = String(await download(exportOf(CREDENTIALS_ID, format)));
      for (const clear of CLEAR) expect(text.includes(clear)).toBe(false);
    }
  });
});

describe('large files of the directory that may hold a secret', () => {
  test('two zips at once mask a JSON lines file line by line and bytes that are not UTF-8 byte by byte, in bounded memory', async () => {
    // Read whole, each zip held both files (six copies' worth of the JSON lines); now each is read in pieces, and what
    // is added is the garbage of the pieces, up to two copies' worth.
    const bound = 3 * JSON_LINES.length;
    const { bodies, added } = await concurrently([zipOf(FILES_ID), zipOf(FILES_ID)], bound);
    expect(bodies[1]!.equals(bodies[0]!)).toBe(true);
    const entries = await unzipWithPython(bodies[0]!);
    // Each line as the file masked whole gives it: the same JSON value, or the same bytes where it is not JSON.
    const lines = String(entries.get(`${FILES_HEX}/agent-log.jsonl`)).split('\n');
    const whole = String(maskedContent('agent-log.jsonl', JSON_LINES, KNOWN)).split('\n');
    expect(lines).toHaveLength(whole.length);
    // Compared as JSON written out again (the same members in the same order), the first lines that differ
    // shown: a matcher per line made this test's longest step.
    const sameValue = (line: string, expected: string) =>
      expected.startsWith('{') ? JSON.stringify(JSON.parse(line)) === JSON.stringify(JSON.parse(expected)) : line === expected;
    const differing = lines.flatMap((line, index) => (sameValue(line, whole[index]!) ? [] : [`line ${index + 1}: ${line.slice(0, 200)}`]));
    expect(differing.slice(0, 5)).toEqual([]);
    const log = lines.join('\n');
    for (const clear of [SECRET, 'sk-line-key-', 'line-header-0003', 'line-credential-0004']) expect(log.includes(clear)).toBe(false);
    const masked = (bytes: Buffer) => Buffer.from(bytes.toString('latin1').split(SECRET).join(MASK), 'latin1');
    expect(entries.get(`${FILES_HEX}/screenshot.bin`)!.equals(masked(BINARY))).toBe(true);
    // A small file that is not UTF-8 had its bytes sent as they were: the same rule now.
    expect(entries.get(`${FILES_HEX}/small.bin`)!.equals(masked(SMALL_BINARY))).toBe(true);
    expect(added).toBeLessThan(bound);
  });
});
