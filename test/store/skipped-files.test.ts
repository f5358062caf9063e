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
    ['an event without a kind', `{"summary":"${SECRET}"}`, 'does not match the contract at /: tag "kind" must be string'],
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
    [
      'a known field broken beside an unlisted one',
      `{"kind":"AgentErrorEvent","parent_id":"p","tool_name":"t","tool_call_id":"c","error":7}`,
      'does not match the contract at /error: must be string',
    ],
    ['bytes that are not UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]), 'not valid UTF-8'],
  ])('skips %s with one warning naming the reason and the file, and serves the rest', async (_name, content, reason) => {
    const events = createConversation(t.root);
    writeEvent(events, 0, userMessage(0));
    const bad = path.join(events, 'event-00001-bad.json');
    writeFileSync(bad, content);
    writeEvent(events, 2, userMessage(2));

    const index = await t.store.open(CONVERSATION);

    expect(index!.events().map((event) => event.position)).toEqual([0, 2]);
    expect(t.logged('warn')).toEqual([
      { time: expect.any(String), level: 'warn', message: 'event files skipped', conversation: CONVERSATION, reason, example: bad, files: 1 },
    ]);
    expect(t.store.health()).toMatchObject({ conversationsLoaded: 1, eventsLoaded: 2, eventsSkipped: 1, storedEvents: { brokenFiles: 1 } });
    expect(t.logs.join('')).not.toContain(SECRET);
  });

  it('warns once per reason for a conversation, however many files share it and however often it is opened', async () => {
    const events = createConversation(t.root);
    for (let i = 0; i < 50; i++) writeFileSync(path.join(events, `event-${String(i).padStart(5, '0')}-bad${i}.json`), '{');
    writeFileSync(path.join(events, 'event-00050-empty.json'), '');

    for (let i = 0; i < 3; i++) await t.store.open(CONVERSATION);

    expect(t.logged('warn').map(({ reason, files }) => ({ reason, files }))).toEqual([
      { reason: 'not valid JSON (truncated or corrupt)', files: 50 },
      { reason: 'empty file', files: 1 },
    ]);
    expect(t.store.health()).toMatchObject({ eventsSkipped: 51, storedEvents: { brokenFiles: 51 } });
  });

  it('serves the first of two files that claim the same index and skips the other', async () => {
    const events = createConversation(t.root);
    writeFileSync(path.join(events, 'event-00001-aaaa.json'), JSON.stringify(pause(1, '2026-06-16T05:39:50')));
    writeFileSync(path.join(events, 'event-00001-bbbb.json'), JSON.stringify(pause(2, '2026-06-16T05:39:51')));

    const index = await t.store.open(CONVERSATION);

    expect(index!.events().map((event) => event.id)).toEqual([pause(1, '').id]);
    expect(t.logged('warn')).toEqual([
      expect.objectContaining({ example: path.join(events, 'event-00001-bbbb.json'), reason: 'its index is already served from another event file' }),
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
