/**
 * The reference 1.58.2's read calls beyond the events search, on one conversation it recorded
 * (the bundled recording, sample-data/recorded-by-reference.json, which
 * test/reference/differential.test.ts proves is what the reference records today): readiness,
 * the agent's final response, the batch get of events by ids (a JSON body on a GET), pydantic's
 * booleans, `/server_info`, and the session socket. The reference and ours, in both of our
 * modes, each serve a copy of the same directory and are asked the same; every answer must be
 * the same but for the differences docs/reference-behaviour.md lists ("The reference 1.58.2's
 * other read calls").
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pythonEnvironment } from '../../dev/python/environment';
import { REFERENCE_SERVER } from '../../dev/python/toolsets';
import { type ReferenceServer, startReferenceServer } from '../../dev/reference/reference-server';
import { createDirectoryCatalog } from '../../src/catalog';
import { RECORDED_SAMPLE } from '../../src/fixture';
import { createMemoryLogger } from '../../src/log';
import { createApp } from '../../src/server/app';
import { listen } from '../../src/server/listen';
import { openDirectoryStore, type StoredEventMode } from '../../src/store';
import { eventually } from '../support/eventually';
import { openTestSocket } from '../support/socket-client';

const ROOT = path.resolve(__dirname, '../..');
const RECORDING = path.join(ROOT, 'sample-data/conversations');
const ID = RECORDED_SAMPLE.conversationId;
const UNKNOWN = '00000000000000000000000000000009';
const MODES: StoredEventMode[] = ['contract', 'as-stored'];
/** What ours leaves out of an event under the contract, which the reference serves (docs/reference-behaviour.md). */
const UNLISTED = ['parent_id', 'extended_content', 'classification'];

interface Served {
  readonly url: string;
  readonly root: string;
  stop(): Promise<void>;
}

const directories: string[] = [];
function copyOfRecording(prefix: string): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), prefix));
  directories.push(directory);
  cpSync(RECORDING, directory, { recursive: true });
  return directory;
}

async function serveOurs(mode: StoredEventMode): Promise<Served> {
  const root = copyOfRecording(`ours-${mode}-`);
  const logger = createMemoryLogger();
  const store = openDirectoryStore(root, { logger, storedEvents: mode });
  const app = createApp({ store, catalog: createDirectoryCatalog(root, logger), logger, validateResponses: mode === 'contract', sessionApiKeys: [] });
  const running = await listen(app, '127.0.0.1', 0);
  return {
    url: running.url,
    root,
    async stop() {
      await running.stop();
      await store.close();
    },
  };
}

let reference: ReferenceServer;
const ours = new Map<StoredEventMode, Served>();

/**
 * The reference's answer to a question, asked of it once: both of our modes are judged against the
 * same answers, and nothing changes its copy of the recording in between (appends go to ours).
 */
const askedOfReference = new Map<string, Promise<unknown>>();
function fromReference<T>(question: string, ask: () => Promise<T>): Promise<T> {
  if (!askedOfReference.has(question)) askedOfReference.set(question, ask());
  return askedOfReference.get(question) as Promise<T>;
}
let eventIds: string[];

beforeAll(async () => {
  const referenceRoot = copyOfRecording('reference-');
  eventIds = readdirSync(path.join(RECORDING, ID, 'events'))
    .sort()
    .flatMap((name) => /^event-\d+-(.+)\.json$/.exec(name)?.[1] ?? []);
  const [started, ...served] = await Promise.all([startReferenceServer({ conversationsPath: referenceRoot }), ...MODES.map(serveOurs)]);
  reference = started;
  for (const [index, mode] of MODES.entries()) ours.set(mode, served[index]!);
});

afterAll(async () => {
  await Promise.all([reference?.stop(), ...[...ours.values()].map((server) => server.stop())]);
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

interface Call {
  path: string;
  body?: string;
  contentType?: string;
}
interface Answer {
  status: number;
  body: unknown;
}

async function ask(base: string, call: Call): Promise<Answer> {
  const headers: Record<string, string> = call.contentType ? { 'content-type': call.contentType } : {};
  // fetch refuses a body on a GET; node's http does not, and neither do the reference's clients.
  const response = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = require('node:http').request(
      `${base}${call.path}`,
      { method: 'GET', headers: { ...headers, ...(call.body !== undefined ? { 'content-length': Buffer.byteLength(call.body) } : {}) } },
      (res: import('node:http').IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    request.on('error', reject);
    request.end(call.body);
  });
  return { status: response.status, body: response.text === '' ? undefined : (JSON.parse(response.text) as unknown) };
}

/**
 * The reference answers events through its response model: keys the stored event leaves out
 * come back as null (as on get-by-id), and sets in their hash order. Under the contract ours also leaves out what the
 * contract does not list. Neither is a difference a client of the read API can act on.
 */
function comparable(value: unknown, mode: StoredEventMode): unknown {
  if (Array.isArray(value)) return value.map((item) => comparable(item, mode));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, item]) => item !== null && !(mode === 'contract' && UNLISTED.includes(key)))
      .map(([key, item]) => [key, key === FORGOTTEN && Array.isArray(item) ? [...item].sort() : comparable(item, mode)]),
  );
}

/** A condensation's forgotten ids are a set in the reference: it sends them in an order that changes from one of its processes to the next. */
const FORGOTTEN = 'forgotten_event_ids';

const BOOLEAN_SPELLINGS = ['True', '1', 'yes', 'on', 'FALSE', '0', 'off', 'no', 't', 'y', 'F', 'N', 'tRuE', 'maybe', '%20true', '', '1.0'];

function calls(): Call[] {
  const json = 'application/json';
  const batch = (conversation: string, body: string | undefined, contentType: string | undefined = json): Call => ({
    path: `/api/conversations/${conversation}/events`,
    ...(body !== undefined ? { body } : {}),
    ...(contentType ? { contentType } : {}),
  });
  const many = JSON.stringify([...Array.from({ length: 5000 }, (_, i) => `no-such-event-${i}`), eventIds[3]]);
  return [
    { path: '/ready' },
    { path: `/api/conversations/${ID}/agent_final_response` },
    { path: `/api/conversations/${UNKNOWN}/agent_final_response` },
    { path: '/api/conversations/nope/agent_final_response' },
    ...BOOLEAN_SPELLINGS.flatMap((value) => [
      { path: `/api/conversations/${ID}?include_skills=${value}` },
      { path: `/api/conversations/search?include_skills=${value}` },
      { path: `/api/conversations?ids=${ID}&include_skills=${value}` },
    ]),
    batch(ID, JSON.stringify([eventIds[0], 'no-such-event', eventIds[0], eventIds[eventIds.length - 1]])),
    batch(ID, '[]'),
    batch(ID, many),
    ...['{}', '[1,null,"x",{"a":1}]', 'notjson', '["a"', '[1,]', '"a"', '', undefined].flatMap((body) => [
      batch(ID, body),
      batch(UNKNOWN, body),
      batch('nope', body),
    ]),
    batch(ID, '["a"]', 'application/vnd.example+json'),
    { path: `/api/conversations/${ID}/events?event_ids=${eventIds[0]}` },
  ];
}

describe.each(MODES)('ours (%s) beside the reference on its recording', (mode) => {
  test('every read call answers with the reference status and body', async () => {
    const served = ours.get(mode)!;
    const differing: { call: Call; reference: Answer; ours: Answer }[] = [];
    for (const call of calls()) {
      const [theirs, mine] = await Promise.all([fromReference(JSON.stringify(call), () => ask(reference.url, call)), ask(served.url, call)]);
      // Catalog bodies have their own comparison (read-surface-against-reference.test.ts); here their status and 422s.
      const catalog = call.path.includes('include_skills') && theirs.status === 200;
      const same = catalog ? theirs.status === mine.status : JSON.stringify(comparable(mine, mode)) === JSON.stringify(comparable(theirs, mode));
      if (!same) differing.push({ call, reference: theirs, ours: mine });
    }
    expect(differing).toEqual([]);
  });

  test("a body sent as another media type: the reference's 500, ours the 422 it means", async () => {
    const call = { path: `/api/conversations/${ID}/events`, body: '["a"]', contentType: 'text/plain' };
    const [theirs, mine] = await Promise.all([fromReference(JSON.stringify(call), () => ask(reference.url, call)), ask(ours.get(mode)!.url, call)]);
    expect(theirs.status).toBe(500);
    expect(mine).toEqual({
      status: 422,
      body: { detail: [{ type: 'list_type', loc: ['body'], msg: 'Input should be a valid list', input: '["a"]' }] },
    });
  });

  test('the session socket sends the same frames for every after_seq, and both sockets refuse and close as the reference does', async () => {
    const served = ours.get(mode)!;
    const last = eventIds.length - 1;
    const queries = [
      'after_seq=-1',
      'after_seq=40',
      `after_seq=${last - 4}`,
      `after_seq=${last}`,
      'after_seq=1000',
      'after_seq=-5',
      'after_seq=99999999999999999999999',
      'after_seq=1.0',
      'after_seq=%205',
      'after_seq=3&after_seq=70',
      '',
    ];
    // Each query on sockets of its own, all at once: each waits a moment after its state update.
    const framesByQuery = await Promise.all(
      queries.map((query) =>
        Promise.all([
          fromReference(`frames ${query}`, () => framesUntilState(sessionUrl(reference.url, ID, query))),
          framesUntilState(sessionUrl(served.url, ID, query)),
        ]),
      ),
    );
    for (const [index, query] of queries.entries()) {
      const [theirs, mine] = framesByQuery[index]!;
      const durable = (frames: Frame[]) => frames.slice(0, -1);
      expect({ query, frames: comparable(durable(mine!), mode) }).toEqual({ query, frames: comparable(durable(theirs!), mode) });
      const [theirState, myState] = [theirs!.at(-1)!, mine!.at(-1)!];
      expect(myState).toMatchObject({
        type: 'transient',
        event: { kind: theirState.event!.kind, key: 'full_state', source: theirState.event!.source },
      });
    }
    for (const [id, query] of [
      ['nope', ''],
      [ID, 'after_seq=abc'],
      [ID, 'after_seq=79.5'],
      [ID, 'after_seq='],
    ] as const) {
      const outcomes = await Promise.all([reference.url, served.url].map((base) => handshake(sessionUrl(base, id, query))));
      expect({ id, query, ours: outcomes[1] }).toEqual({ id, query, ours: outcomes[0] });
      expect(outcomes[0]).toBe('refused 403');
    }
    for (const [id, query] of [
      ['nope', ''],
      [ID, 'resend_mode=everything'],
      [ID, 'resend_mode=since&after_timestamp=yesterday'],
      [ID, 'resend_all=maybe'],
    ] as const) {
      const eventsUrl = (base: string) => `${base.replace(/^http/, 'ws')}/sockets/events/${id}?${query}`;
      const outcomes = await Promise.all([reference.url, served.url].map((base) => handshake(eventsUrl(base))));
      expect({ socket: 'events', id, query, ours: outcomes[1] }).toEqual({ socket: 'events', id, query, ours: outcomes[0] });
    }
    const closes = await Promise.all([reference.url, served.url].map((base) => openTestSocket(sessionUrl(base, UNKNOWN)).closed));
    expect(closes[1]).toEqual(closes[0]);
    expect(closes[0]).toEqual({ code: 4004, reason: 'Conversation not found' });
  });

  test('a frame from the client: a redundant auth frame is ignored, one that is not JSON gets the same error frame', async () => {
    const served = ours.get(mode)!;
    const answers = await Promise.all(
      [reference.url, served.url].map(async (base) => {
        const socket = openTestSocket(sessionUrl(base, ID));
        await socket.framesArrived(2);
        socket.ws.send(JSON.stringify({ type: 'auth', session_api_key: 'unused' }));
        socket.ws.send('not json');
        const [, , error] = await socket.framesArrived(3);
        socket.ws.send('[1]');
        const [, , , readOnly] = await socket.framesArrived(4);
        socket.ws.close();
        return { error: JSON.parse(error!) as Frame, readOnly: JSON.parse(readOnly!) as Frame };
      }),
    );
    expect(answers[1]!.error).toEqual(answers[0]!.error);
    expect(answers[0]!.error).toEqual({ type: 'error', code: 'JSONDecodeError', detail: 'Expecting value: line 1 column 1 (char 0)' });
    // The reference takes JSON as a message for its agent (here one that does not validate); an archive has no agent.
    expect(answers[0]!.readOnly).toMatchObject({ type: 'error', code: 'ValidationError' });
    expect(answers[1]!.readOnly).toMatchObject({ type: 'error', code: 'ReadOnlyConversation' });
  });
});

test('ours follows appends live and a client reconnecting with after_seq misses nothing', async () => {
  const served = ours.get('as-stored')!;
  const last = eventIds.length - 1;
  const socket = openTestSocket(sessionUrl(served.url, ID, `after_seq=${last}`));
  const first = await socket.framesArrived(2);
  expect(JSON.parse(first[0]!)).toEqual({ type: 'sync', from_seq: last, through_seq: last });
  const appended = appendMessage(served.root, last + 1, 'appended-1');
  const [, , live] = await socket.framesArrived(3);
  expect(JSON.parse(live!)).toEqual({ type: 'durable', seq: last + 1, event: appended });
  socket.ws.terminate();
  const later = appendMessage(served.root, last + 2, 'appended-2');
  // The server has the file once its count says so; the reconnect then finds it stored.
  await eventually(async () => expect(await (await fetch(`${served.url}/api/conversations/${ID}/events/count`)).json()).toBe(last + 3), {
    withinMs: 5000,
  });
  const again = await framesUntilState(sessionUrl(served.url, ID, `after_seq=${last + 1}`));
  expect(again.slice(0, -1)).toEqual([
    { type: 'sync', from_seq: last + 1, through_seq: last + 2 },
    { type: 'durable', seq: last + 2, event: later },
  ]);
});

test("the published TypeScript client's readiness, server info and final response read the same from both", async () => {
  const [theirs, mine] = await Promise.all([reference.url, ours.get('contract')!.url].map((base) => publishedReadCalls(base, ID)));
  expect(mine!.ready).toEqual(theirs!.ready);
  expect(mine!.finalResponse).toEqual(theirs!.finalResponse);
  // Ours has the reference's fields but those naming its Python build and runtimes.
  const notOurs = [
    'available_conversation_runtimes',
    'conversation_runtime',
    'python_version',
    'redoc',
    'sdk_version',
    'tools_version',
    'workspace_version',
  ];
  expect(mine!.serverInfoKeys).toEqual((theirs!.serverInfoKeys as string[]).filter((key) => !notOurs.includes(key)));
});

test("the Python SDK's RemoteWorkspace reads ours' server info as it reads the reference's", async () => {
  const python = await pythonEnvironment(REFERENCE_SERVER);
  // One interpreter reads both servers: importing the SDK is most of its time.
  const keys = await new Promise<string[][]>((resolve, reject) =>
    execFile(
      python.python,
      [
        '-c',
        'import json,sys\nfrom openhands.sdk.workspace import RemoteWorkspace\nprint(json.dumps([sorted(RemoteWorkspace(host=host, working_dir="/w").get_server_info()) for host in sys.argv[1:]]))',
        reference.url,
        ours.get('contract')!.url,
      ],
      // No clock: a busy machine makes the Python client slower, not failed (jest's hang guard applies).
      {},
      (error, stdout, stderr) => (error ? reject(new Error(stderr || error.message)) : resolve(JSON.parse(stdout) as string[][])),
    ),
  );
  expect(keys).toHaveLength(2);
  for (const key of [
    'build_git_sha',
    'build_git_ref',
    'app_backend_ingress_url',
    'runtime_idle_timeout_seconds',
    'max_foreground_terminal_timeout_seconds',
  ])
    expect([key, keys[1]!.includes(key)]).toEqual([key, keys[0]!.includes(key)]);
});

interface Frame {
  type: string;
  event?: { kind?: string; key?: string; source?: string };
}

function sessionUrl(base: string, id: string, query = ''): string {
  return `${base.replace(/^http/, 'ws')}/sockets/session/${id}${query ? `?${query}` : ''}`;
}

/** The frames up to and with the transient state update, and a moment after it, in which nothing more must come. */
async function framesUntilState(url: string): Promise<Frame[]> {
  const socket = openTestSocket(url);
  // Until the state update is in (or the socket closed), however busy the machine: jest's hang guard applies.
  while (!socket.frames.some((frame) => frame.startsWith('{"type":"transient"')) && socket.ws.readyState <= socket.ws.OPEN)
    await new Promise((resolve) => setTimeout(resolve, 20));
  await new Promise((resolve) => setTimeout(resolve, 300));
  socket.ws.close();
  return socket.frames.map((frame) => JSON.parse(frame) as Frame);
}

async function handshake(url: string): Promise<string> {
  const socket = openTestSocket(url);
  try {
    await socket.opened;
    socket.ws.close();
    return 'opened';
  } catch (error) {
    // The status only: ours adds a body naming the parameter.
    const status = /^handshake answered (\d+)/.exec((error as Error).message)?.[1];
    return status ? `refused ${status}` : (error as Error).message;
  }
}

/** Writes a user message as the reference would append it at `position`; the event as stored. */
function appendMessage(root: string, position: number, text: string): Record<string, unknown> {
  const id = `0000000${position}-1111-4222-8333-444455556666`.slice(-36);
  const event = {
    id,
    timestamp: `2026-11-25T15:30:${String(position % 60).padStart(2, '0')}.000001`,
    source: 'user',
    llm_message: { role: 'user', content: [{ type: 'text', text }] },
    activated_skills: [],
    kind: 'MessageEvent',
  };
  const file = path.join(root, ID, 'events', `event-${String(position).padStart(5, '0')}-${id}.json`);
  writeFileSync(file, JSON.stringify(event));
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

function publishedReadCalls(base: string, id: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [path.join(ROOT, 'test/interop/support/published-read-calls.mjs'), base, id], {}, (error, stdout, stderr) =>
      error ? reject(new Error(stderr || error.message)) : resolve(JSON.parse(stdout) as Record<string, unknown>),
    ),
  );
}
