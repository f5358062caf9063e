/**
 * Our catalog, socket and trajectory answers against the live reference (1.58.2), each
 * serving its own copy of the same conversations directory, laid out as the reference
 * saves it. The reference re-validates what it stored through its models, so it adds its
 * defaults (and fields newer than the stored state) and orders keys its own way; we answer
 * what was stored. The comparison is therefore: every value we answer is the reference's
 * value at the same place, except secrets, which we mask where the reference masks them or
 * drops them (docs/reference-behaviour.md, "Differences").
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { type ReferenceServer, startReferenceServer } from '../../dev/reference/reference-server';
import { MASKED_SECRET } from '../../src/catalog';
import { writeConversation } from '../../src/fixture/layout';
import { conversationId, eventId, message } from '../support/events';
import { STORED_SECRETS, writeConversationState } from '../support/conversation-state';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { openTestSocket, socketUrl } from '../support/socket-client';

const IDS = [1, 2, 3].map((n) => conversationId(n));
let source: string;
let referenceRoot: string;
let reference: ReferenceServer;
let ours: LiveServer;

beforeAll(async () => {
  source = mkdtempSync(path.join(os.tmpdir(), 'read-surface-'));
  for (const [n, id] of IDS.entries()) {
    const events = [1, 2, 3, 4].map((k) =>
      // Chronological, as the reference appends: on disorderly timestamps it walks in file order (docs/reference-behaviour.md).
      message(
        { id: eventId(10 * n + k), timestamp: `2026-11-25T10:0${n}:0${k}.000001`, source: k % 2 ? 'user' : 'agent' },
        { text: [`message ${k}`] },
      ),
    );
    writeConversation(source, id, events);
    writeConversationState(source, id, {
      createdAt: `2026-11-2${n}T10:00:00.000001`,
      updatedAt: `2026-11-2${4 - n}T11:00:00.000001`,
      title: `Conversation ${n + 1}`,
      status: n === 1 ? 'error' : 'finished',
      parentId: n === 2 ? IDS[0] : undefined,
    });
  }
  referenceRoot = mkdtempSync(path.join(os.tmpdir(), 'read-surface-reference-'));
  cpSync(source, referenceRoot, { recursive: true });
  [reference, ours] = await Promise.all([startReferenceServer({ conversationsPath: referenceRoot }), startLiveServer([])]);
  cpSync(source, ours.root, { recursive: true });
});

afterAll(async () => {
  await Promise.all([reference?.stop(), ours?.stop()]);
  for (const directory of [source, referenceRoot]) rmSync(directory, { recursive: true, force: true });
});

async function both(pathAndQuery: string): Promise<[{ status: number; body: unknown }, { status: number; body: unknown }]> {
  const answer = async (base: string) => {
    const response = await fetch(base + pathAndQuery);
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
  };
  return Promise.all([answer(reference.url), answer(ours.url)]);
}

/**
 * Where our value differs from the reference's at the same place. A masked secret of ours
 * matches the reference's mask, or its null, or its absence (it drops what it cannot decrypt).
 */
function differences(ourValue: unknown, referenceValue: unknown, at = '$'): string[] {
  if (ourValue === MASKED_SECRET && (referenceValue === MASKED_SECRET || referenceValue === null || referenceValue === undefined)) return [];
  // The reference leaves some secret holders out entirely (an MCP server's environment); ours holds only masks there.
  if ((referenceValue === undefined || referenceValue === null) && onlyMasks(ourValue)) return [];
  if (Array.isArray(ourValue)) {
    if (!Array.isArray(referenceValue) || referenceValue.length !== ourValue.length)
      return [`${at}: ${JSON.stringify(ourValue)} against ${JSON.stringify(referenceValue)}`];
    return ourValue.flatMap((item, index) => differences(item, referenceValue[index], `${at}[${index}]`));
  }
  if (typeof ourValue === 'object' && ourValue !== null) {
    if (typeof referenceValue !== 'object' || referenceValue === null) return [`${at}: an object against ${JSON.stringify(referenceValue)}`];
    return Object.entries(ourValue).flatMap(([key, item]) => differences(item, (referenceValue as Record<string, unknown>)[key], `${at}.${key}`));
  }
  return ourValue === referenceValue ? [] : [`${at}: ${JSON.stringify(ourValue)} against ${JSON.stringify(referenceValue)}`];
}

function onlyMasks(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return value === MASKED_SECRET;
  const items = Object.values(value);
  return items.length > 0 && items.every(onlyMasks);
}

/** Where we mask more than the reference: it answers a lookup secret's URL as stored. */
const WE_MASK_MORE = ['.secret_registry.secret_sources.LOOKUP.url'];

function unexplained(found: string[]): string[] {
  return found.filter((difference) => !WE_MASK_MORE.some((place) => difference.includes(`${place}:`)));
}

test('count, search walks in every order, get and get by ids answer as the reference answers, secrets aside', async () => {
  for (const query of ['', '?status=error', '?status=finished', '?status=paused']) {
    const [theirs, mine] = await both(`/api/conversations/count${query}`);
    expect(mine).toEqual(theirs);
  }
  for (const order of ['CREATED_AT', 'UPDATED_AT', 'CREATED_AT_DESC', 'UPDATED_AT_DESC']) {
    for (const limit of [1, 2, 100]) {
      let pageId: string | null = null;
      let pages = 0;
      do {
        const [theirs, mine] = await both(`/api/conversations/search?sort_order=${order}&limit=${limit}${pageId ? `&page_id=${pageId}` : ''}`);
        expect(mine.status).toBe(theirs.status);
        const [theirPage, myPage] = [theirs.body, mine.body] as { items: { id: string }[]; next_page_id: string | null }[];
        expect(myPage!.items.map((item) => item.id)).toEqual(theirPage!.items.map((item) => item.id));
        expect(myPage!.next_page_id).toEqual(theirPage!.next_page_id);
        expect(unexplained(differences(myPage!.items, theirPage!.items))).toEqual([]);
        pageId = myPage!.next_page_id;
        pages++;
      } while (pageId !== null && pages < 10);
    }
  }
  for (const request of [
    `/api/conversations/${IDS[0]}`,
    `/api/conversations/${IDS[2]}?include_skills=true`,
    `/api/conversations?ids=${IDS[1]}&ids=${conversationId(9)}`,
  ]) {
    const [theirs, mine] = await both(request);
    expect(mine.status).toBe(theirs.status);
    expect(unexplained(differences(mine.body, theirs.body))).toEqual([]);
    for (const secret of STORED_SECRETS) expect(JSON.stringify(mine.body)).not.toContain(secret);
  }
  for (const request of [
    `/api/conversations/${conversationId(9)}`,
    '/api/conversations/search?limit=101',
    '/api/conversations/search?status=sleeping',
    '/api/conversations?ids=nope',
  ]) {
    const [theirs, mine] = await both(request);
    expect({ request, status: mine.status }).toEqual({ request, status: theirs.status });
  }
});

/** Where `mine` has the mask and `theirs` a value, by dotted path; everything else must be equal. */
function maskedOnlyHere(mine: unknown, theirs: unknown, at = ''): string[] {
  if (mine === MASKED_SECRET && theirs !== MASKED_SECRET) return [at];
  if (typeof mine !== 'object' || mine === null || typeof theirs !== 'object' || theirs === null) {
    expect({ at, value: mine }).toEqual({ at, value: theirs });
    return [];
  }
  expect({ at, keys: Object.keys(mine) }).toEqual({ at, keys: Object.keys(theirs) });
  return Object.keys(mine).flatMap((key) =>
    maskedOnlyHere((mine as Record<string, unknown>)[key], (theirs as Record<string, unknown>)[key], at ? `${at}.${key}` : key),
  );
}

test('the trajectory archive holds the same entries with the same bytes, but the secrets the reference leaks', async () => {
  const archives = await Promise.all(
    [reference.url, ours.url].map(async (base, n) => {
      const response = await fetch(`${base}/api/file/download-trajectory/${IDS[1]}`);
      expect(response.status).toBe(200);
      const file = path.join(os.tmpdir(), `trajectory-${process.pid}-${n}.zip`);
      require('node:fs').writeFileSync(file, Buffer.from(await response.arrayBuffer()));
      return execFileSync('python3', [
        '-c',
        'import json,sys,zipfile\nz=zipfile.ZipFile(sys.argv[1])\nprint(json.dumps({n: z.read(n).decode() for n in z.namelist()}))',
        file,
      ]).toString();
    }),
  );
  const [theirEntries, myEntries] = archives.map((archive) => JSON.parse(archive!) as Record<string, string>);
  expect(Object.keys(myEntries!)).toEqual(Object.keys(theirEntries!));
  for (const [name, text] of Object.entries(myEntries!)) {
    if (!name.endsWith('/base_state.json')) {
      expect({ name, text }).toEqual({ name, text: theirEntries![name] });
      continue;
    }
    // The reference zips the saved state as stored but for the LLM keys and the registry's static values
    // (its users reported the leak); ours masks every field the SDK treats as a secret (docs/hardening.md).
    expect(maskedOnlyHere(JSON.parse(text), JSON.parse(theirEntries![name]!))).toEqual([
      'agent.mcp_config.fetch.env.TOKEN',
      'agent.mcp_config.search.auth.value',
      'secret_registry.secret_sources.LOOKUP.url',
      'secret_registry.secret_sources.LOOKUP.headers.Authorization',
    ]);
    for (const secret of STORED_SECRETS) expect(text).not.toContain(secret);
  }
  const [theirs, mine] = await both(`/api/file/download-trajectory/${conversationId(9)}`);
  expect(mine).toEqual(theirs);
});

interface Frame {
  id: string;
  kind: string;
  key?: string;
  value?: unknown;
}

test('the socket sends the state update first, then the same events in the same order; unknown is 4004 on both', async () => {
  for (const query of ['resend_mode=all', 'resend_mode=since&after_timestamp=2026-11-25T10:00:02.000001', 'resend_all=true']) {
    const [theirs, mine] = await Promise.all(
      [reference.url, ours.url].map(async (base) => {
        const socket = openTestSocket(socketUrl(base, IDS[0]!, query));
        // Both send the resend right after the state; a message frame is answered only after it (an error frame from both).
        await socket.framesArrived(1);
        socket.ws.send(JSON.stringify({ role: 'user', content: 'not a message the server can take' }));
        // Until the error frame is in (or the socket closed), however busy the machine: jest's hang guard applies.
        while (!socket.frames.some((frame) => frame.includes('ServerErrorEvent')) && socket.ws.readyState === socket.ws.OPEN)
          await new Promise((resolve) => setTimeout(resolve, 50));
        socket.ws.close();
        return socket.frames.map((frame) => JSON.parse(frame) as Frame);
      }),
    );
    const events = (frames: Frame[]) => frames.slice(1).filter((frame) => frame.kind !== 'ServerErrorEvent');
    expect(mine![0]).toMatchObject({ kind: theirs![0]!.kind, key: 'full_state' });
    expect(unexplained(differences(mine![0]!.value, theirs![0]!.value))).toEqual([]);
    expect(events(mine!).map((event) => event.id)).toEqual(events(theirs!).map((event) => event.id));
    expect(differences(events(mine!), events(theirs!))).toEqual([]);
  }
  const closes = await Promise.all([reference.url, ours.url].map((base) => openTestSocket(socketUrl(base, conversationId(9))).closed));
  expect(closes[1]).toEqual(closes[0]);
});
