import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Event } from '../../src/contract';
import { eventFileName, serializeEvent, writeConversation } from '../../src/fixture';
import { writeConversationState } from '../support/conversation-state';
import { action, conversationId, eventId, message, observation, pause } from '../support/events';
import { eventually } from '../support/eventually';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { pageBody, searchPath } from '../support/search-requests';

/*
 * The server reads real directories in the reference layout and keeps up with them
 * while it runs: files appended, rewritten or removed are seen by the next requests
 * within a second, and a file that cannot be served is skipped without hiding the rest.
 */
const at = (n: number, timestamp: string) => ({ id: eventId(n), timestamp });
const BASE: Event[] = [
  message({ ...at(1, '2026-06-16T05:40:01'), source: 'user' }, { text: ['Start'] }),
  action(at(2, '2026-06-16T05:40:02')),
  observation(at(3, '2026-06-16T05:40:03')),
  message({ ...at(4, '2026-06-16T05:40:04'), source: 'agent' }, { text: ['Done'] }),
];

function eventsDirectory(server: LiveServer, conversation: string): string {
  return path.join(server.root, conversation.replaceAll('-', ''), 'events');
}

function writeEvent(server: LiveServer, conversation: string, position: number, event: Event): string {
  const file = path.join(eventsDirectory(server, conversation), eventFileName(position, event.id!));
  writeFileSync(file, serializeEvent(event));
  return file;
}

async function page(server: LiveServer, conversation: string, query = {}) {
  const { status, body } = await server.get(searchPath(conversation, query));
  return { status, body };
}

describe('changes while the server runs', () => {
  // One conversation per test, all in one server: a server costs a validator compile.
  let server: LiveServer;
  let next = 50;
  let CONVERSATION: string;
  beforeAll(async () => {
    server = await startLiveServer(Array.from({ length: 12 }, (_, i) => ({ id: conversationId(50 + i), events: BASE })));
  });
  afterAll(() => server.stop());
  beforeEach(async () => {
    CONVERSATION = conversationId(next++);
    expect(await page(server, CONVERSATION)).toEqual({ status: 200, body: pageBody(BASE) });
  });

  it('an appended event file is served within a second', async () => {
    const appended = pause(at(5, '2026-06-16T05:40:05.000001'));
    writeEvent(server, CONVERSATION, 4, appended);
    await eventually(async () => expect(await page(server, CONVERSATION)).toEqual({ status: 200, body: pageBody([...BASE, appended]) }));
    expect(await page(server, CONVERSATION, { kind: 'PauseEvent', source: 'user' })).toEqual({ status: 200, body: pageBody([appended]) });
  });

  it('an appended event with an earlier timestamp takes its place in the order', async () => {
    const early = message({ ...at(6, '2026-06-16T05:40:02.5'), source: 'user' }, { text: ['Written late'] });
    writeEvent(server, CONVERSATION, 4, early);
    const ascending = [BASE[0]!, BASE[1]!, early, BASE[2]!, BASE[3]!];
    await eventually(async () => expect(await page(server, CONVERSATION)).toEqual({ status: 200, body: pageBody(ascending) }));
    expect(await page(server, CONVERSATION, { sort_order: 'TIMESTAMP_DESC', limit: 3 })).toEqual({
      status: 200,
      body: pageBody([...ascending].reverse().slice(0, 3), BASE[1]!.id),
    });
    expect(await page(server, CONVERSATION, { body: 'written late' })).toEqual({ status: 200, body: pageBody([early]) });
  });

  it('several files appended at once are all served, in order', async () => {
    const appended = [5, 6, 7, 8, 9].map((n) => pause(at(n, `2026-06-16T05:40:1${n}`)));
    for (const [i, event] of appended.entries()) writeEvent(server, CONVERSATION, 4 + i, event);
    await eventually(async () => expect(await page(server, CONVERSATION)).toEqual({ status: 200, body: pageBody([...BASE, ...appended]) }));
  });

  it('a rewritten event file is served with its new content, and a removed one disappears', async () => {
    const rewritten = message({ ...at(4, '2026-06-16T05:40:04'), source: 'agent' }, { text: ['Done, rewritten'] });
    const rewrittenFile = writeEvent(server, CONVERSATION, 3, rewritten);
    await eventually(async () => expect(await page(server, CONVERSATION)).toEqual({ status: 200, body: pageBody([...BASE.slice(0, 3), rewritten]) }));

    rmSync(rewrittenFile);
    await eventually(async () => expect(await page(server, CONVERSATION)).toEqual({ status: 200, body: pageBody(BASE.slice(0, 3)) }));
    expect(await page(server, CONVERSATION, { page_id: rewritten.id! })).toEqual({ status: 200, body: pageBody(BASE.slice(0, 3)) });
  });

  it('a first page asked again and again shows every append, rewrite and removal', async () => {
    const queries = [{}, { sort_order: 'TIMESTAMP_DESC', limit: 2 }, { kind: 'PauseEvent' }];
    const pages = async () => Promise.all(queries.map((query) => page(server, CONVERSATION, query)));
    const expected = (events: Event[]) => [
      { status: 200, body: pageBody(events) },
      { status: 200, body: pageBody([...events].reverse().slice(0, 2), events.length > 2 ? events[events.length - 3]!.id : null) },
      { status: 200, body: pageBody(events.filter((event) => event.kind === 'PauseEvent')) },
    ];
    for (let round = 0; round < 3; round++) expect(await pages()).toEqual(expected(BASE));

    const appended = pause(at(5, '2026-06-16T05:40:05'));
    const appendedFile = writeEvent(server, CONVERSATION, 4, appended);
    await eventually(async () => expect(await pages()).toEqual(expected([...BASE, appended])));
    expect(await pages()).toEqual(expected([...BASE, appended]));

    // Written in place: the directory's times do not change, only the watch names the file.
    const rewritten = pause(at(5, '2026-06-16T05:40:06'));
    writeEvent(server, CONVERSATION, 4, rewritten);
    await eventually(async () => expect(await pages()).toEqual(expected([...BASE, rewritten])));

    rmSync(appendedFile);
    await eventually(async () => expect(await pages()).toEqual(expected(BASE)));
  });

  it('a first page asked again masks a secret the saved state came to hold since', async () => {
    const token = 'deploy-token-0001234';
    const echo = observation(at(5, '2026-06-16T05:40:05'), `$ echo $DEPLOY\n${token}`);
    writeEvent(server, CONVERSATION, 4, echo);
    await eventually(async () => expect((await server.get(searchPath(CONVERSATION))).text).toContain(token));
    expect((await server.get(searchPath(CONVERSATION))).text).toContain(token);

    writeConversationState(server.root, CONVERSATION, { createdAt: '2026-06-16T05:40:00', updatedAt: '2026-06-16T05:40:05' });
    const stateFile = path.join(server.root, CONVERSATION.replaceAll('-', ''), 'base_state.json');
    const state = JSON.parse(readFileSync(stateFile, 'utf8'));
    state.secret_registry.secret_sources.DEPLOY = { kind: 'StaticSecret', value: token };
    writeFileSync(stateFile, JSON.stringify(state));
    await eventually(async () => {
      const { text } = await server.get(searchPath(CONVERSATION));
      expect(text).not.toContain(token);
      expect(text).toContain(`$ echo $DEPLOY\\n**********`);
    });
  });

  it('an events directory replaced while the conversation is held is read afresh', async () => {
    const replacement = pause(at(9, '2026-06-16T05:40:09'));
    const directory = eventsDirectory(server, CONVERSATION);
    rmSync(directory, { recursive: true });
    mkdirSync(directory);
    writeEvent(server, CONVERSATION, 0, replacement);
    await eventually(async () => expect(await page(server, CONVERSATION)).toEqual({ status: 200, body: pageBody([replacement]) }));
  });

  it('an event file linking outside the conversations directory is never served, and is named in a warning', async () => {
    const outside = mkdtempSync(path.join(os.tmpdir(), 'outside-events-'));
    try {
      const secret = pause(at(8, '2026-06-16T05:40:08'));
      writeFileSync(path.join(outside, 'secret.json'), serializeEvent(secret));
      const link = path.join(eventsDirectory(server, CONVERSATION), eventFileName(4, secret.id!));
      symlinkSync(path.join(outside, 'secret.json'), link);
      const warned = () => server.logs.some((line) => line.includes('"level":"warn"') && line.includes(JSON.stringify(link)));
      await eventually(async () => expect(warned()).toBe(true));
      expect(await page(server, CONVERSATION)).toEqual({ status: 200, body: pageBody(BASE) });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('a conversation created after the server started is found', async () => {
    const later = conversationId(41);
    expect(await page(server, later)).toEqual({ status: 404, body: { detail: `Conversation not found: ${later}` } });
    writeConversation(server.root, later, BASE.slice(0, 2));
    expect(await page(server, later)).toEqual({ status: 200, body: pageBody(BASE.slice(0, 2)) });
  });

  it('a conversation whose directory is deleted is not found any more', async () => {
    rmSync(path.join(server.root, CONVERSATION.replaceAll('-', '')), { recursive: true });
    expect(await page(server, CONVERSATION)).toEqual({ status: 404, body: { detail: `Conversation not found: ${CONVERSATION}` } });
  });

  it('a conversation with an events file instead of an events directory is a server fault, not an empty page', async () => {
    const other = conversationId(42);
    const directory = path.join(server.root, other.replaceAll('-', ''));
    mkdirSync(directory);
    writeFileSync(path.join(directory, 'events'), 'not a directory');
    expect((await page(server, other)).status).toBe(500);
  });
});

describe('event files that cannot be served', () => {
  const CONVERSATION = conversationId(43);
  const STORED: Event[] = [
    ...BASE,
    pause(at(5, '2026-06-16T05:40:05')),
    message({ ...at(6, '2026-06-16T05:40:06'), source: 'user' }, { text: ['Bye'] }),
  ];
  const TRUNCATED = eventFileName(1, STORED[1]!.id!);
  const NOT_THE_CONTRACT = eventFileName(4, STORED[4]!.id!);
  const SERVED = [STORED[0]!, STORED[2]!, STORED[3]!, STORED[5]!];
  let server: LiveServer;
  let directory: string;

  beforeAll(async () => {
    server = await startLiveServer([{ id: CONVERSATION, events: STORED }]);
    directory = eventsDirectory(server, CONVERSATION);
    writeFileSync(path.join(directory, TRUNCATED), serializeEvent(STORED[1]!).slice(0, 40));
    writeFileSync(path.join(directory, NOT_THE_CONTRACT), JSON.stringify({ ...STORED[4]!, timestamp: ['a field the contract knows, broken'] }));
    writeFileSync(path.join(directory, 'notes.txt'), 'not an event file');
    writeFileSync(path.join(directory, 'event-1-00000000.json'), '{}');
  });
  afterAll(() => server.stop());

  function warningsAbout(name: string): Record<string, unknown>[] {
    return server.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line['level'] === 'warn' && typeof line['example'] === 'string' && path.basename(line['example']) === name);
  }

  it('the other events are still served, in every order and filter', async () => {
    expect(await page(server, CONVERSATION)).toEqual({ status: 200, body: pageBody(SERVED) });
    expect(await page(server, CONVERSATION, { sort_order: 'TIMESTAMP_DESC' })).toEqual({ status: 200, body: pageBody([...SERVED].reverse()) });
    expect(await page(server, CONVERSATION, { kind: 'ActionEvent' })).toEqual({ status: 200, body: pageBody([]) });
  });

  it('/health counts the skipped files, not the files that are no event files', async () => {
    await page(server, CONVERSATION);
    expect((await server.get('/health')).body).toMatchObject({
      status: 'ok',
      conversations_loaded: 1,
      events_loaded: 4,
      events_skipped_invalid: 2,
      stored_events: { broken_files: 2 },
    });
  });

  it('each reason is warned of once, naming a file, however often the conversation is searched', async () => {
    await page(server, CONVERSATION);
    await page(server, CONVERSATION, { limit: 1 });
    expect(warningsAbout(TRUNCATED)).toEqual([
      expect.objectContaining({
        message: 'event files skipped',
        example: path.join(directory, TRUNCATED),
        reason: 'not valid JSON (truncated or corrupt)',
        files: 1,
      }),
    ]);
    expect(warningsAbout(NOT_THE_CONTRACT)).toEqual([
      expect.objectContaining({
        message: 'event files skipped',
        example: path.join(directory, NOT_THE_CONTRACT),
        reason: expect.stringContaining('/timestamp'),
      }),
    ]);
    expect(warningsAbout('notes.txt')).toEqual([]);
    expect(warningsAbout('event-1-00000000.json')).toEqual([]);
  });

  it('the warnings never quote the content of the file', () => {
    expect(server.logs.join('\n')).not.toContain('a field the contract knows, broken');
  });

  it('a skipped file that is repaired is served, and no longer counted', async () => {
    writeFileSync(path.join(directory, TRUNCATED), serializeEvent(STORED[1]!));
    await eventually(async () =>
      expect(await page(server, CONVERSATION)).toEqual({ status: 200, body: pageBody([STORED[0]!, STORED[1]!, STORED[2]!, STORED[3]!, STORED[5]!]) }),
    );
    expect((await server.get('/health')).body).toMatchObject({ status: 'ok', conversations_loaded: 1, events_loaded: 5, events_skipped_invalid: 1 });
  });
});
