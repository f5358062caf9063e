import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createMemoryLogger } from '../../src/log';
import { createDirectoryStore } from '../../src/store';
import {
  CONVERSATION,
  OTHER_CONVERSATION,
  createConversation,
  pause,
  storeOverTemporaryRoot,
  userMessage,
  writeEvent,
  type StoreUnderTest,
} from './conversations-on-disk';
import { eventually } from '../support/eventually';

let t: StoreUnderTest;
beforeEach(() => (t = storeOverTemporaryRoot()));
afterEach(() => t.cleanUp());

const positionsOf = (events: readonly { position: number }[]) => events.map((event) => event.position);

describe('loading a conversation', () => {
  it('serves every event file as its stored bytes, with the fields the search needs', async () => {
    const events = createConversation(t.root);
    const message = userMessage(1, '2026-06-16T05:39:49.015522');
    const file = writeEvent(events, 0, message);
    writeEvent(events, 1, pause(2, '2026-06-16T05:39:50'));

    const index = await t.store.open(CONVERSATION);

    expect(index?.size).toBe(2);
    const [first, second] = index!.events();
    expect(first).toEqual({
      id: message.id,
      kind: 'MessageEvent',
      source: 'user',
      micros: new Date(2026, 5, 16, 5, 39, 49).getTime() * 1000 + 15522,
      position: 0,
      text: 'message number 1',
      payload: Buffer.from(JSON.stringify(message)),
    });
    expect(first!.payload.toString()).toBe(require('node:fs').readFileSync(file, 'utf8'));
    expect(second).toMatchObject({ kind: 'PauseEvent', source: 'user', position: 1, text: undefined });
  });

  it('trims whitespace around the stored JSON', async () => {
    const events = createConversation(t.root);
    const message = userMessage(1);
    writeFileSync(path.join(events, `event-00000-${message.id}.json`), `\n ${JSON.stringify(message)}\n\n`);

    const index = await t.store.open(CONVERSATION);

    expect(index!.events()[0]!.payload.toString()).toBe(JSON.stringify(message));
  });

  it('takes the id from the file name when the event stores none', async () => {
    const events = createConversation(t.root);
    writeFileSync(path.join(events, 'event-00000-event1.json'), JSON.stringify({ timestamp: '2026-06-16T05:39:50', kind: 'PauseEvent' }));

    const index = await t.store.open(CONVERSATION);

    expect(index!.events().map((event) => event.id)).toEqual(['event1']);
  });

  it('orders by timestamp, then by the index in the file name, whatever order the files were written in', async () => {
    const events = createConversation(t.root);
    const sameTime = '2026-06-16T05:39:50.000001';
    for (const position of [3, 0, 12, 1, 100000]) writeEvent(events, position, pause(position, sameTime));
    writeEvent(events, 2, pause(2, '2026-06-16T05:39:49'));

    const index = await t.store.open(CONVERSATION);

    expect(positionsOf(index!.events())).toEqual([2, 0, 1, 3, 12, 100000]);
  });

  it('ignores files whose names are not event file names, without a warning', async () => {
    const events = createConversation(t.root);
    writeEvent(events, 0, pause(0, '2026-06-16T05:39:50'));
    const ignored = [
      'notes.txt',
      'event-0001-abc.json',
      'event-00002-abc.json.tmp',
      '.event-00003-abc.json',
      'event-00004.json',
      'EVENT-00005-abc.json',
    ];
    for (const name of ignored) writeFileSync(path.join(events, name), 'not json');
    mkdirSync(path.join(events, 'archive'));

    const index = await t.store.open(CONVERSATION);

    expect(positionsOf(index!.events())).toEqual([0]);
    expect(t.logged('warn')).toEqual([]);
    expect(t.store.health()).toMatchObject({ conversationsLoaded: 1, eventsLoaded: 1, eventsSkipped: 0 });
  });

  it('serves a conversation without an events directory as empty', async () => {
    mkdirSync(path.join(t.root, CONVERSATION));

    const index = await t.store.open(CONVERSATION);

    expect(index?.size).toBe(0);
  });

  it('shares one load between concurrent opens of the same conversation', async () => {
    const events = createConversation(t.root);
    for (let i = 0; i < 50; i++) writeEvent(events, i, userMessage(i));

    const [a, b, c] = await Promise.all([t.store.open(CONVERSATION), t.store.open(CONVERSATION), t.store.open(CONVERSATION)]);

    expect(a?.size).toBe(50);
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(t.logged('info', 'conversation loaded')).toHaveLength(1);
  });

  it('keeps conversations apart', async () => {
    writeEvent(createConversation(t.root, CONVERSATION), 0, userMessage(1));
    writeEvent(createConversation(t.root, OTHER_CONVERSATION), 0, userMessage(2));

    const [a, b] = await Promise.all([t.store.open(CONVERSATION), t.store.open(OTHER_CONVERSATION)]);

    expect(a!.events().map((event) => event.text)).toEqual(['message number 1']);
    expect(b!.events().map((event) => event.text)).toEqual(['message number 2']);
    expect(t.store.health()).toMatchObject({ conversationsLoaded: 2, eventsLoaded: 2, eventsSkipped: 0 });
  });
});

describe('which conversations exist', () => {
  it('answers undefined for a conversation without a directory', async () => {
    createConversation(t.root, OTHER_CONVERSATION);

    expect(await t.store.open(CONVERSATION)).toBeUndefined();
    expect(t.store.health()).toMatchObject({ conversationsLoaded: 0, eventsLoaded: 0, eventsSkipped: 0 });
  });

  it.each([
    ['upper-case hex', CONVERSATION.toUpperCase()],
    ['a hyphenated uuid', '8f1a2b3c-4d5e-4f70-8192-a3b4c5d6e7f8'],
    ['a path out of the root', `../${CONVERSATION}`],
    ['the root itself', '.'],
    ['an empty name', ''],
  ])('never looks up %s', async (_name, hex) => {
    createConversation(t.root, CONVERSATION);

    expect(await t.store.open(hex)).toBeUndefined();
  });

  it('finds a conversation directory created after a request for it missed', async () => {
    expect(await t.store.open(CONVERSATION)).toBeUndefined();

    writeEvent(createConversation(t.root), 0, userMessage(1));

    expect((await t.store.open(CONVERSATION))?.size).toBe(1);
  });

  it('answers undefined once the conversation directory is deleted, and drops it from memory', async () => {
    writeEvent(createConversation(t.root), 0, userMessage(1));
    expect((await t.store.open(CONVERSATION))?.size).toBe(1);

    rmSync(path.join(t.root, CONVERSATION), { recursive: true });

    expect(await t.store.open(CONVERSATION)).toBeUndefined();
    expect(t.store.health()).toMatchObject({ conversationsLoaded: 0, eventsLoaded: 0, eventsSkipped: 0 });
  });

  it('loads afresh a conversation directory deleted and created again under the same name', async () => {
    writeEvent(createConversation(t.root), 0, userMessage(1));
    const before = await t.store.open(CONVERSATION);

    rmSync(path.join(t.root, CONVERSATION), { recursive: true });
    writeEvent(createConversation(t.root), 0, userMessage(2));
    const after = await t.store.open(CONVERSATION);

    expect(after).not.toBe(before);
    expect(after!.events().map((event) => event.text)).toEqual(['message number 2']);
  });
});

describe('store lifetime and failures', () => {
  it('rejects with the path named when the conversations directory is gone', async () => {
    const root = path.join(t.root, 'missing');
    const store = createDirectoryStore(root, { logger: createMemoryLogger() });

    await expect(store.open(CONVERSATION)).rejects.toThrow(root);
    await store.close();
  });

  const runsAsRoot = process.getuid?.() === 0;
  // Permissions do not bind root, so this case can only run as another user.
  (runsAsRoot ? it.skip : it)('rejects with the path named when the events directory cannot be read', async () => {
    const events = createConversation(t.root);
    writeEvent(events, 0, userMessage(1));
    require('node:fs').chmodSync(events, 0o000);
    try {
      await expect(t.store.open(CONVERSATION)).rejects.toThrow(events);
    } finally {
      require('node:fs').chmodSync(events, 0o755);
    }
    expect((await t.store.open(CONVERSATION))?.size).toBe(1);
  });

  it('refuses opens after close', async () => {
    writeEvent(createConversation(t.root), 0, userMessage(1));
    await t.store.open(CONVERSATION);

    await t.store.close();

    await expect(t.store.open(CONVERSATION)).rejects.toThrow('closed');
    expect(t.store.health().conversationsLoaded).toBe(0);
  });
});

describe('checking a held conversation on disk', () => {
  const fsPromises = require('node:fs/promises') as typeof import('node:fs/promises');

  it('answers repeated requests from memory, without a file system call each time', async () => {
    writeEvent(createConversation(t.root), 0, userMessage(1));
    await t.store.open(CONVERSATION);
    const lstat = jest.spyOn(fsPromises, 'lstat');
    try {
      for (let i = 0; i < 20; i++) expect((await t.store.open(CONVERSATION))?.size).toBe(1);

      // One more check is allowed, should the loop straddle the recheck interval.
      expect(lstat.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      lstat.mockRestore();
    }
  });

  it('notices a deleted conversation within a second where no notification comes', async () => {
    const polling = storeOverTemporaryRoot({ watch: 'poll', pollMs: 60_000 });
    try {
      writeEvent(createConversation(polling.root), 0, userMessage(1));
      expect((await polling.store.open(CONVERSATION))?.size).toBe(1);

      rmSync(path.join(polling.root, CONVERSATION), { recursive: true });

      await eventually(async () => expect(await polling.store.open(CONVERSATION)).toBeUndefined());
    } finally {
      await polling.cleanUp();
    }
  });
});
