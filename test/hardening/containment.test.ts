/**
 * Nothing outside the conversations root is ever served. Shown by results and log lines,
 * not by tracing system calls: ids that would traverse are refused by UUID validation
 * before the store is asked for anything (the store is wrapped to record every `open`),
 * and symbolic links that lead out of the root are not followed, as the store decided
 * (src/store/directory/open/contained-path.ts): a conversation or events directory linked outside is
 * treated as absent, an event file linked outside is skipped and counted.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Event } from '../../src/contract';
import { eventFileName, serializeEvent, writeConversation } from '../../src/fixture';
import { createMemoryLogger } from '../../src/log';
import { createApp } from '../../src/server/app';
import { type RunningServer, listen } from '../../src/server/listen';
import { openDirectoryStore } from '../../src/store/sqlite/indexed-directory';
import type { EventStore } from '../../src/store/event-store';
import { conversationId, eventId, message } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { pageBody } from '../support/search-requests';
import { unzipWithPython } from '../support/unzip';
import { rawGet } from './support/raw-http';

const INSIDE = conversationId(50);
const INSIDE_HEX = INSIDE.replaceAll('-', '');
const SECRET_TEXT = 'secret from outside the conversations root';
const PASSWD_LINE = 'root:x:0:0:root:/root:/bin/bash';
const inside = message({ id: eventId(1), timestamp: '2026-06-16T05:40:01.000001', source: 'user' }, { text: ['inside the root'] });
const secret = message({ id: eventId(2), timestamp: '2026-06-16T05:40:02.000001', source: 'user' }, { text: [SECRET_TEXT] });

let outside: string;
beforeEach(() => {
  outside = mkdtempSync(path.join(os.tmpdir(), 'hardening-outside-'));
});
afterEach(() => rmSync(outside, { recursive: true, force: true }));

function logged(logs: string[], level: string): Record<string, unknown>[] {
  return logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry['level'] === level);
}

describe('ids that would traverse never reach the store', () => {
  let root: string;
  let running: RunningServer;
  let store: EventStore;
  const opened: string[] = [];

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'hardening-root-'));
    writeConversation(root, INSIDE, [inside]);
    const logger = createMemoryLogger();
    const real = openDirectoryStore(root, { logger });
    // The real store, recording what it is asked to open: nothing is stubbed.
    store = {
      search: (hex, criteria) => {
        opened.push(hex);
        return real.search(hex, criteria);
      },
      count: (hex, filters) => {
        opened.push(hex);
        return real.count(hex, filters);
      },
      getEvent: (hex, eventId) => {
        opened.push(hex);
        return real.getEvent(hex, eventId);
      },
      listConversations: () => real.listConversations(),
      searchAll: (criteria) => real.searchAll(criteria),
      countAll: (filters) => real.countAll(filters),
      exportEvents: (hex) => {
        opened.push(hex);
        return real.exportEvents(hex);
      },
      health: () => real.health(),
      close: () => real.close(),
    };
    running = await listen(createApp({ store, logger, validateResponses: true }), '127.0.0.1', 0);
  });
  afterAll(async () => {
    await running.stop();
    await store.close();
    rmSync(root, { recursive: true, force: true });
  });

  const traversals = [
    '..',
    '%2e%2e',
    '..%2F..%2F..%2Fetc%2Fpasswd',
    '..%5C..%5Cwindows',
    `${INSIDE_HEX}%2F..%2F${INSIDE_HEX}`,
    `..%2F${path.basename(os.tmpdir())}%2F${INSIDE_HEX}`,
    '%252e%252e%252f',
    '%C0%AE%C0%AE%C0%AF',
    '....%2F%2F',
    `%2F${INSIDE_HEX}`,
    `${INSIDE_HEX}%00`,
    `${INSIDE_HEX}%2F`,
  ];
  it.each(traversals)('%s: 422 on conversation_id, and the store is never asked', async (segment) => {
    opened.length = 0;
    const response = await rawGet(running.url, `/api/conversations/${segment}/events/search`);
    expect(response.status).toBe(422);
    expect((JSON.parse(response.body) as { detail: { loc: string[]; type: string }[] }).detail.map(({ loc, type }) => ({ loc, type }))).toEqual([
      { loc: ['path', 'conversation_id'], type: 'uuid_parsing' },
    ]);
    expect(opened).toEqual([]);
  });

  it('a valid id in any accepted form reaches the store as 32 lower-case hex digits, the only name it looks up', async () => {
    opened.length = 0;
    for (const form of [INSIDE, INSIDE_HEX, INSIDE.toUpperCase(), `{${INSIDE}}`, `urn:uuid:${INSIDE}`]) {
      expect((await rawGet(running.url, `/api/conversations/${form}/events/search`)).status).toBe(200);
    }
    expect(opened).toEqual(Array(5).fill(INSIDE_HEX));
  });
});

describe('symbolic links out of the root are not followed', () => {
  let server: LiveServer;
  beforeEach(async () => {
    server = await startLiveServer([]);
  });
  afterEach(() => server.stop());

  const search = (id: string) => server.statusAndBody(`/api/conversations/${id}/events/search`);

  it('a conversation directory linked outside is not found, with one warning naming the link', async () => {
    writeConversation(outside, INSIDE, [secret]);
    symlinkSync(path.join(outside, INSIDE_HEX), path.join(server.root, INSIDE_HEX));

    expect(await search(INSIDE)).toEqual({ status: 404, body: { detail: `Conversation not found: ${INSIDE}` } });
    expect(await search(INSIDE)).toEqual({ status: 404, body: { detail: `Conversation not found: ${INSIDE}` } });
    expect(logged(server.logs, 'warn')).toEqual([
      expect.objectContaining({
        message: 'conversation directory links outside the conversations directory, not followed',
        path: path.join(server.root, INSIDE_HEX),
      }),
    ]);
  });

  it('an events directory linked outside holds no events, with a warning', async () => {
    writeConversation(outside, INSIDE, [secret]);
    mkdirSync(path.join(server.root, INSIDE_HEX));
    symlinkSync(path.join(outside, INSIDE_HEX, 'events'), path.join(server.root, INSIDE_HEX, 'events'));

    expect(await search(INSIDE)).toEqual({ status: 200, body: pageBody([]) });
    expect(logged(server.logs, 'warn')).toEqual([
      expect.objectContaining({
        message: 'events directory links outside the conversations directory, not followed',
        path: path.join(server.root, INSIDE_HEX, 'events'),
      }),
    ]);
  });

  it('event files linked to files outside (an event, a passwd-like file, /etc/passwd) are skipped, counted and named in the log', async () => {
    const written = writeConversation(server.root, INSIDE, [inside]);
    const events = path.join(written.directory, 'events');
    writeFileSync(path.join(outside, 'event.json'), serializeEvent(secret as Event));
    writeFileSync(path.join(outside, 'passwd'), `${PASSWD_LINE}\n`);
    const links = [
      [eventFileName(1, eventId(2)), path.join(outside, 'event.json')],
      [eventFileName(2, eventId(3)), path.join(outside, 'passwd')],
      ...(existsSync('/etc/passwd') ? [[eventFileName(3, eventId(4)), '/etc/passwd']] : []),
    ] as const;
    for (const [name, target] of links) symlinkSync(target, path.join(events, name));

    const response = await server.get(`/api/conversations/${INSIDE}/events/search`);
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: pageBody([inside]) });
    expect(response.text).not.toContain(SECRET_TEXT);
    expect(response.text).not.toContain('root:x:0:0');
    expect((await server.statusAndBody('/health')).body).toMatchObject({
      status: 'ok',
      conversations_loaded: 1,
      events_loaded: 1,
      events_skipped_invalid: links.length,
    });
    // One warning for the reason all the links share, naming the first as its example.
    expect(logged(server.logs, 'warn')).toEqual([
      expect.objectContaining({
        message: 'event files skipped',
        example: path.join(events, links[0][0]),
        files: links.length,
        reason: 'symbolic link to a file outside the conversations directory, not followed',
      }),
    ]);
    expect(server.logs.join('\n')).not.toContain(SECRET_TEXT);
  });

  it('a file of the trajectory zip replaced by a link out of the root or a named pipe, or under a folder replaced by one, while the zip streams is left out', async () => {
    const written = writeConversation(server.root, INSIDE, [inside]);
    writeFileSync(path.join(outside, 'secret.txt'), SECRET_TEXT);
    mkdirSync(path.join(outside, 'folder'));
    writeFileSync(path.join(outside, 'folder', 'notes.txt'), SECRET_TEXT);
    mkdirSync(path.join(written.directory, 'z-folder'));
    writeFileSync(path.join(written.directory, 'z-folder', 'notes.txt'), 'listed inside the conversation');
    // Bytes that do not compress, sorted before the files replaced: the download stalls behind them while its reader waits.
    writeFileSync(path.join(written.directory, 'a-large.bin'), randomBytes(24 * 1024 * 1024));
    writeFileSync(path.join(written.directory, 'z-link.txt'), 'listed as a regular file');
    writeFileSync(path.join(written.directory, 'z-pipe.json'), '{}');
    const zip = await new Promise<Buffer>((resolve, reject) => {
      get(`${server.url}/api/file/download-trajectory/${INSIDE}`, (response) => {
        const chunks: Buffer[] = [];
        response.once('data', (first: Buffer) => {
          chunks.push(first);
          response.pause();
          // Listed as regular files; replaced before the download reads them.
          rmSync(path.join(written.directory, 'z-link.txt'));
          symlinkSync(path.join(outside, 'secret.txt'), path.join(written.directory, 'z-link.txt'));
          rmSync(path.join(written.directory, 'z-pipe.json'));
          execFileSync('mkfifo', [path.join(written.directory, 'z-pipe.json')]);
          rmSync(path.join(written.directory, 'z-folder'), { recursive: true });
          symlinkSync(path.join(outside, 'folder'), path.join(written.directory, 'z-folder'));
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve(Buffer.concat(chunks)));
          setTimeout(() => response.resume(), 200);
        });
        response.on('error', reject);
      }).on('error', reject);
    });
    const entries = await unzipWithPython(zip);
    expect([...entries.keys()]).toContain(`${INSIDE_HEX}/a-large.bin`);
    // The folder's own entry was listed before it was replaced; nothing read through the link is in.
    expect([...entries.keys()].filter((name) => name.includes('z-'))).toEqual([`${INSIDE_HEX}/z-folder/`]);
    expect(zip.includes(Buffer.from(SECRET_TEXT))).toBe(false);
  });

  it('links that stay inside the root are followed: containment, not a ban on links', async () => {
    const other = conversationId(51);
    writeConversation(server.root, other, [inside]);
    symlinkSync(path.join(server.root, other.replaceAll('-', '')), path.join(server.root, INSIDE_HEX));

    expect(await search(INSIDE)).toEqual({ status: 200, body: pageBody([inside]) });
  });
});
