import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  CONVERSATION,
  createConversation,
  pause,
  storeOverTemporaryRoot,
  userMessage,
  writeEvent,
  type StoreUnderTest,
} from './conversations-on-disk';

let t: StoreUnderTest;
beforeEach(() => (t = storeOverTemporaryRoot()));
afterEach(() => t.cleanUp());

const SECRET = 'gAAAAABsecret-encrypted-content';

describe('event files that cannot be served', () => {
  it.each([
    ['corrupt JSON', `{"id":"x","kind":"PauseEvent","encrypted_content":"${SECRET}"`, 'not valid JSON (truncated or corrupt)'],
    ['an empty file', '', 'empty file'],
    ['a JSON value that is no event', `["${SECRET}"]`, 'does not match the contract at /: must be object'],
    ['an unknown kind', `{"kind":"FancyEvent","summary":"${SECRET}"}`, 'does not match the contract at /: value of tag "kind" must be in oneOf'],
    [
      'an unknown property',
      `{"kind":"PauseEvent","parent_id":"${SECRET}"}`,
      'does not match the contract at /: must NOT have additional properties (parent_id)',
    ],
    [
      'a missing required property',
      '{"kind":"MessageEvent","source":"user"}',
      "does not match the contract at /: must have required property 'llm_message'",
    ],
    [
      'a wrong type deep inside',
      '{"kind":"MessageEvent","source":"user","llm_message":{"role":7}}',
      'does not match the contract at /llm_message/role: must be string',
    ],
    [
      'a nested union given a string',
      '{"kind":"ObservationEvent","tool_name":"t","tool_call_id":"c","action_id":"a","observation":"x"}',
      'does not match the contract at /observation: must be object',
    ],
    ['bytes that are not UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]), 'not valid UTF-8'],
  ])('skips %s with one warning naming the file and the reason, and serves the rest', async (_name, content, reason) => {
    const events = createConversation(t.root);
    writeEvent(events, 0, userMessage(0));
    const bad = path.join(events, 'event-00001-bad.json');
    writeFileSync(bad, content);
    writeEvent(events, 2, userMessage(2));

    const index = await t.store.open(CONVERSATION);

    expect(index!.events().map((event) => event.position)).toEqual([0, 2]);
    expect(t.logged('warn')).toEqual([
      { time: expect.any(String), level: 'warn', message: 'event file skipped', conversation: CONVERSATION, file: bad, reason },
    ]);
    expect(t.store.health()).toMatchObject({ conversationsLoaded: 1, eventsLoaded: 2, eventsSkipped: 1 });
    expect(t.logs.join('')).not.toContain(SECRET);
  });

  it('warns once per file, however often the file is opened', async () => {
    const events = createConversation(t.root);
    writeFileSync(path.join(events, 'event-00000-bad.json'), '{');

    for (let i = 0; i < 3; i++) await t.store.open(CONVERSATION);

    expect(t.logged('warn')).toHaveLength(1);
  });

  it('serves the first of two files that claim the same index and skips the other', async () => {
    const events = createConversation(t.root);
    writeFileSync(path.join(events, 'event-00001-aaaa.json'), JSON.stringify(pause(1, '2026-06-16T05:39:50')));
    writeFileSync(path.join(events, 'event-00001-bbbb.json'), JSON.stringify(pause(2, '2026-06-16T05:39:51')));

    const index = await t.store.open(CONVERSATION);

    expect(index!.events().map((event) => event.id)).toEqual([pause(1, '').id]);
    expect(t.logged('warn')).toEqual([
      expect.objectContaining({ file: path.join(events, 'event-00001-bbbb.json'), reason: 'index 1 is already served from another event file' }),
    ]);
  });

  it('skips a directory that carries an event file name', async () => {
    const events = createConversation(t.root);
    require('node:fs').mkdirSync(path.join(events, 'event-00000-dir.json'));

    const index = await t.store.open(CONVERSATION);

    expect(index!.size).toBe(0);
    expect(t.logged('warn')).toEqual([expect.objectContaining({ reason: 'not a regular file' })]);
  });
});
