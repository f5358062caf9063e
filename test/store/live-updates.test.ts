import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  CONVERSATION,
  createConversation,
  eventFileName,
  storeOverTemporaryRoot,
  userMessage,
  writeEvent,
  type StoreUnderTest,
} from './conversations-on-disk';
import { eventually } from '../support/eventually';

let t: StoreUnderTest;
afterEach(() => t.cleanUp());

const sizeOf = async () => (await t.store.open(CONVERSATION))?.size;

// Polling is what runs where notifications fail; its interval is shortened here only to
// keep the suite quick (the default is once a second).
describe.each([
  ['notified by inotify', { watch: 'notify' as const }],
  ['polling', { watch: 'poll' as const, pollMs: 200 }],
])('changes while the server runs, %s', (_name, options) => {
  beforeEach(() => (t = storeOverTemporaryRoot(options)));

  it('serves an event file appended to a loaded conversation within a second', async () => {
    const events = createConversation(t.root);
    writeEvent(events, 0, userMessage(0));
    expect(await sizeOf()).toBe(1);

    writeEvent(events, 1, userMessage(1));

    await eventually(async () => expect(await sizeOf()).toBe(2));
    const index = await t.store.open(CONVERSATION);
    expect(index!.events().map((event) => event.position)).toEqual([0, 1]);
  });

  it('serves many files appended in a burst, each once', async () => {
    const events = createConversation(t.root);
    writeEvent(events, 0, userMessage(0));
    await sizeOf();

    for (let i = 1; i <= 200; i++) writeEvent(events, i, userMessage(i));

    await eventually(async () => expect(await sizeOf()).toBe(201));
    expect(t.store.health()).toMatchObject({
      conversationsLoaded: 1,
      eventsLoaded: 201,
      eventsSkipped: 0,
      memoryBudgetBytes: null,
      conversationsDropped: 0,
    });
  });

  it('serves a file caught half-written once it is complete, and stops counting it as skipped', async () => {
    const events = createConversation(t.root);
    writeEvent(events, 0, userMessage(0));
    await sizeOf();
    const message = JSON.stringify(userMessage(1));
    const file = path.join(events, eventFileName(1, userMessage(1).id));

    writeFileSync(file, message.slice(0, 40));
    await eventually(() => expect(t.store.health().eventsSkipped).toBe(1));
    appendFileSync(file, message.slice(40));

    await eventually(async () => expect(await sizeOf()).toBe(2));
    expect(t.store.health()).toMatchObject({ conversationsLoaded: 1, eventsLoaded: 2, eventsSkipped: 0 });
    // Once per reason: the file may have been seen empty before it was seen cut short.
    expect(t.logged('warn', 'event files skipped').map((line) => line['example'])).toContain(file);
    expect(t.logged('warn', 'event files skipped').length).toBeLessThanOrEqual(2);
    expect(t.logged('info', 'event file served after being skipped')).toEqual([expect.objectContaining({ file })]);
  });

  it('serves an empty file once its content is written', async () => {
    const events = createConversation(t.root);
    await sizeOf();
    const file = path.join(events, eventFileName(0, userMessage(0).id));

    writeFileSync(file, '');
    await eventually(() => expect(t.store.health().eventsSkipped).toBe(1));
    writeFileSync(file, JSON.stringify(userMessage(0)));

    await eventually(async () => expect(await sizeOf()).toBe(1));
    expect(t.store.health().eventsSkipped).toBe(0);
  });

  it('stops serving an event file that is deleted', async () => {
    const events = createConversation(t.root);
    writeEvent(events, 0, userMessage(0));
    const doomed = writeEvent(events, 1, userMessage(1));
    expect(await sizeOf()).toBe(2);

    rmSync(doomed);

    await eventually(async () => expect(await sizeOf()).toBe(1));
  });

  it('picks up an events directory created after the conversation was loaded', async () => {
    mkdirSync(path.join(t.root, CONVERSATION));
    expect(await sizeOf()).toBe(0);

    const events = createConversation(t.root);
    writeEvent(events, 0, userMessage(0));
    expect(await sizeOf()).toBe(1);

    writeEvent(events, 1, userMessage(1));
    await eventually(async () => expect(await sizeOf()).toBe(2));
  });

  it('drops a conversation from memory when its directory is deleted, without waiting for a request', async () => {
    writeEvent(createConversation(t.root), 0, userMessage(0));
    await sizeOf();

    rmSync(path.join(t.root, CONVERSATION), { recursive: true });

    await eventually(() => expect(t.store.health().conversationsLoaded).toBe(0));
    expect(await sizeOf()).toBeUndefined();
  });
});
