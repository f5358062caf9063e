import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CONVERSATION,
  OTHER_CONVERSATION,
  createConversation,
  eventFileName,
  storeOverTemporaryRoot,
  userMessage,
  writeEvent,
  type StoreUnderTest,
} from './conversations-on-disk';

let t: StoreUnderTest;
let outside: string;
beforeEach(() => {
  t = storeOverTemporaryRoot();
  outside = mkdtempSync(path.join(os.tmpdir(), 'event-store-outside-'));
});
afterEach(async () => {
  await t.cleanUp();
  rmSync(outside, { recursive: true, force: true });
});

describe('symbolic links', () => {
  it('does not follow a conversation directory that links outside the root, and warns once', async () => {
    writeEvent(createConversation(outside), 0, userMessage(0));
    symlinkSync(path.join(outside, CONVERSATION), path.join(t.root, CONVERSATION));

    expect(await t.store.open(CONVERSATION)).toBeUndefined();
    expect(await t.store.open(CONVERSATION)).toBeUndefined();
    expect(t.logged('warn')).toEqual([
      expect.objectContaining({
        message: 'conversation directory links outside the conversations directory, not followed',
        path: path.join(t.root, CONVERSATION),
      }),
    ]);
  });

  it('follows a conversation directory that links to another directory inside the root', async () => {
    writeEvent(createConversation(t.root, OTHER_CONVERSATION), 0, userMessage(0));
    symlinkSync(path.join(t.root, OTHER_CONVERSATION), path.join(t.root, CONVERSATION));

    expect((await t.store.open(CONVERSATION))?.size).toBe(1);
  });

  it('does not follow an events directory that links outside the root', async () => {
    writeEvent(createConversation(outside), 0, userMessage(0));
    mkdirSync(path.join(t.root, CONVERSATION));
    symlinkSync(path.join(outside, CONVERSATION, 'events'), path.join(t.root, CONVERSATION, 'events'));

    expect((await t.store.open(CONVERSATION))?.size).toBe(0);
    expect(t.logged('warn')).toEqual([
      expect.objectContaining({ message: 'events directory links outside the conversations directory, not followed' }),
    ]);
  });

  it('skips an event file that links outside the root, and counts it', async () => {
    const events = createConversation(t.root);
    writeEvent(events, 0, userMessage(0));
    const secret = path.join(outside, 'secret.json');
    writeFileSync(secret, JSON.stringify(userMessage(1)));
    const link = path.join(events, eventFileName(1, 'linked'));
    symlinkSync(secret, link);

    const index = await t.store.open(CONVERSATION);

    expect(index!.events().map((event) => event.position)).toEqual([0]);
    expect(t.logged('warn')).toEqual([
      expect.objectContaining({
        message: 'event files skipped',
        example: link,
        reason: 'symbolic link to a file outside the conversations directory, not followed',
      }),
    ]);
    expect(t.store.health().eventsSkipped).toBe(1);
  });

  it('follows an event file that links to a file inside the root', async () => {
    const events = createConversation(t.root);
    const stored = path.join(t.root, 'shared.json');
    writeFileSync(stored, JSON.stringify(userMessage(7)));
    symlinkSync(stored, path.join(events, eventFileName(0, 'linked')));

    const index = await t.store.open(CONVERSATION);

    expect(index!.events().map((event) => event.text)).toEqual(['message number 7']);
  });

  it('skips a dangling event file link', async () => {
    const events = createConversation(t.root);
    symlinkSync(path.join(t.root, 'nowhere.json'), path.join(events, eventFileName(0, 'dangling')));

    expect((await t.store.open(CONVERSATION))!.size).toBe(0);
    expect(t.logged('warn')).toEqual([expect.objectContaining({ reason: 'symbolic link to a missing file' })]);
  });
});
