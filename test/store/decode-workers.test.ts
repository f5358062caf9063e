import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createMemoryLogger } from '../../src/log';
import type { EventIndex } from '../../src/search';
import { eventPageBody } from '../../src/server/event-page';
import { createDirectoryStore, type DirectoryEventStore } from '../../src/store';
import { MainThreadDecoder, SharedDecoder, loadSharing } from '../../src/store/directory/load/where-batches-decode';
import { DecodePool } from '../../src/store/directory/load/workers/worker-pool';
import { parseEventFileName } from '../../src/store/directory/load/event-file-name';
import { PayloadSlab } from '../../src/store/directory/memory/payload-slabs';
import { TimeSlice } from '../../src/store/directory/load/time-slice';
import {
  CONVERSATION,
  createConversation,
  eventFileName,
  pause,
  storeOverTemporaryRoot,
  userMessage,
  writeEvent,
  type StoreUnderTest,
} from './conversations-on-disk';
import { eventually } from '../support/eventually';

/*
 * Large loads are decoded in worker threads. What a conversation serves must not depend
 * on where it was decoded: the same events, bytes, skipped files and warnings.
 */
let t: StoreUnderTest;
let outside: string;
beforeEach(() => {
  t = storeOverTemporaryRoot({ decodeInWorkersFrom: Number.POSITIVE_INFINITY });
  outside = mkdtempSync(path.join(os.tmpdir(), 'decode-workers-outside-'));
});
afterEach(async () => {
  await t.cleanUp();
  rmSync(outside, { recursive: true, force: true });
});

/** Every kind of file a load meets: events, broken files, links inside and outside the root, two files for one index. */
function writeMixedConversation(): string {
  const events = createConversation(t.root);
  for (let i = 0; i < 40; i++) writeEvent(events, i, i % 3 === 0 ? pause(i, `2026-06-16T05:39:${10 + i}.25`) : userMessage(i));
  const files: [string, string | Buffer][] = [
    ['event-00003-second-claim.json', JSON.stringify(pause(3, '2026-06-16T05:39:13'))],
    ['event-00040-corrupt.json', '{"kind":"PauseEvent"'],
    ['event-00041-unknown.json', '{"kind":"PauseEvent","parent_id":"x"}'],
    ['event-00042-empty.json', ''],
    ['event-00043-latin1.json', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])],
    [
      'event-00050-hook.json',
      '{"source":"hook","hook_event_type":"Stop","hook_command":"x","success":true,"exit_code":0,"kind":"HookExecutionEvent"}',
    ],
    ['event-00051-hook-source.json', '{"source":"hook","kind":"PauseEvent"}'],
    ['event-00044-no-id.json', '  {"timestamp":"2026-06-16T05:38:00","kind":"PauseEvent"}\n'],
    [eventFileName(45, userMessage(45).id), JSON.stringify({ ...userMessage(45), extended_content: [{ type: 'text', text: 'x'.repeat(100_000) }] })],
  ];
  for (const [name, content] of files) writeFileSync(path.join(events, name), content);
  mkdirSync(path.join(events, 'event-00046-directory.json'));
  writeFileSync(path.join(outside, 'secret.json'), JSON.stringify(userMessage(47)));
  symlinkSync(path.join(outside, 'secret.json'), path.join(events, eventFileName(47, 'outside')));
  writeFileSync(path.join(t.root, 'shared.json'), JSON.stringify(userMessage(48)));
  symlinkSync(path.join(t.root, 'shared.json'), path.join(events, eventFileName(48, 'inside')));
  symlinkSync(path.join(t.root, 'nowhere.json'), path.join(events, eventFileName(49, 'dangling')));
  return events;
}

function warnings(lines: string[]): unknown[] {
  return lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry['level'] === 'warn')
    .map(({ time: _time, ...rest }) => rest);
}

async function openInWorkers(): Promise<{ store: DirectoryEventStore; logs: string[] }> {
  const logger = createMemoryLogger();
  const store = createDirectoryStore(t.root, { logger, decodeInWorkersFrom: 0 });
  return { store, logs: logger.lines };
}

describe('loads decoded in worker threads', () => {
  it('serve the same events, bytes, skipped files and warnings as loads decoded on the main thread', async () => {
    writeMixedConversation();
    const onMainThread = await t.store.open(CONVERSATION);
    const workers = await openInWorkers();
    try {
      const inWorkers = await workers.store.open(CONVERSATION);

      expect(inWorkers!.events()).toEqual(onMainThread!.events());
      expect(inWorkers!.size).toBe(44);
      // A page is sent from where the payloads lie, which differs between the two.
      const page = (index: EventIndex<Buffer>) =>
        Buffer.concat(
          eventPageBody(
            index.events().map((event) => event.payload),
            null,
          ).parts,
        ).toString('utf8');
      expect(page(inWorkers!)).toBe(page(onMainThread!));
      expect(JSON.parse(page(inWorkers!)).items).toHaveLength(44);
      expect(workers.store.health().storedEvents).toMatchObject({
        servedWithUnlistedProperties: 1,
        unlistedProperties: { parent_id: 1 },
        notServedByKind: { HookExecutionEvent: 1 },
        notServedByValue: { 'source = "hook"': 1 },
      });
      expect(workers.store.health()).toMatchObject({ ...t.store.health(), bytesHeld: expect.any(Number), decodeWorkerBytes: expect.any(Number) });
      expect(warnings(workers.logs)).toEqual(warnings(t.logs));
      expect(warnings(workers.logs)).toHaveLength(7);
      const loaded = workers.logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((entry) => entry['message'] === 'conversation loaded');
      expect(loaded).toMatchObject({ decodedInWorkers: true });
    } finally {
      await workers.store.close();
    }
  });

  it('keep the conversation current afterwards', async () => {
    const events = createConversation(t.root);
    for (let i = 0; i < 10; i++) writeEvent(events, i, userMessage(i));
    const workers = await openInWorkers();
    try {
      expect((await workers.store.open(CONVERSATION))?.size).toBe(10);

      writeEvent(events, 10, userMessage(10));
      rmSync(path.join(events, eventFileName(0, userMessage(0).id)));

      await eventually(async () =>
        expect((await workers.store.open(CONVERSATION))!.events().map((event) => event.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
      );
    } finally {
      await workers.store.close();
    }
  });
});

describe('many smaller loads one after another', () => {
  it('start the workers once they add up, then share them, serving what the main thread alone serves', async () => {
    const hexes = writeConversationsOf100(12);
    const logger = createMemoryLogger();
    // Four loads of 100 files add up to the threshold: the fifth and later may share the workers.
    const store = createDirectoryStore(t.root, { logger, decodeInWorkersFrom: 400 });
    try {
      for (const hex of hexes) {
        const shared = await store.open(hex);
        const alone = await t.store.open(hex);
        expect(shared!.events()).toEqual(alone!.events());
      }
      const loads = loadsDecodedInWorkers(logger.lines);
      expect(loads.slice(0, 4)).toEqual([false, false, false, false]);
      expect(loads.slice(4)).toContain(true);
    } finally {
      await store.close();
    }
  });

  it('leave the workers alone under a memory budget too small to hold one beside conversations', async () => {
    const hexes = writeConversationsOf100(8);
    const logger = createMemoryLogger();
    const store = createDirectoryStore(t.root, { logger, decodeInWorkersFrom: 400, memoryBudgetBytes: 8 * 1024 * 1024 });
    try {
      for (const hex of hexes) await store.open(hex);
      expect(loadsDecodedInWorkers(logger.lines)).toEqual(hexes.map(() => false));
    } finally {
      await store.close();
    }
  });
});

function writeConversationsOf100(count: number): string[] {
  const hexes = Array.from({ length: count }, (_, i) => `${String(i).padStart(2, '0')}${CONVERSATION.slice(2)}`);
  for (const hex of hexes) {
    const events = createConversation(t.root, hex);
    for (let i = 0; i < 100; i++) writeEvent(events, i, i % 7 === 0 ? pause(i, `2026-06-16T05:39:${10 + (i % 40)}.25`) : userMessage(i));
  }
  return hexes;
}

function loadsDecodedInWorkers(lines: string[]): unknown[] {
  return lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry['message'] === 'conversation loaded')
    .map((entry) => entry['decodedInWorkers']);
}

describe('the decode pool', () => {
  const logger = createMemoryLogger();
  let pool: DecodePool;
  afterEach(() => pool.close());

  function decodersOver(events: string) {
    const realRoot = realpathSync(t.root);
    const onMainThread = new MainThreadDecoder(events, realRoot, new TimeSlice(2), new PayloadSlab(), 'contract');
    return { onMainThread, inWorkers: new SharedDecoder(pool, events, realRoot, onMainThread, 'contract', loadSharing(1000, 2, 256)) };
  }

  it('stops its workers once idle, and starts them again for the next job', async () => {
    pool = new DecodePool({ workers: 2, idleMs: 50, logger });
    const events = createConversation(t.root);
    writeEvent(events, 0, userMessage(0));
    const { inWorkers } = decodersOver(events);
    const files = [parseEventFileName(eventFileName(0, userMessage(0).id))!];

    expect((await inWorkers.decode(files)).files).toEqual([expect.objectContaining({ position: 0, text: 'message number 0' })]);
    expect(pool.running).toBe(2);
    await eventually(() => expect(pool.running).toBe(0), { withinMs: 2000 });

    expect((await inWorkers.decode(files)).files).toEqual([expect.objectContaining({ position: 0, text: 'message number 0' })]);
  });

  it('stops its workers at once when asked after a large load, and not while a job runs', async () => {
    pool = new DecodePool({ workers: 2, idleMs: 60_000, logger });
    const events = createConversation(t.root);
    writeEvent(events, 0, userMessage(0));
    const { inWorkers } = decodersOver(events);
    const files = [parseEventFileName(eventFileName(0, userMessage(0).id))!];

    const running = inWorkers.decode(files);
    await pool.stopIfIdle();
    expect(pool.running).toBe(2);
    await running;
    await pool.stopIfIdle();
    expect(pool.running).toBe(0);
  });

  it('decodes on the main thread, after one warning, when its workers cannot start', async () => {
    const failures = createMemoryLogger();
    pool = new DecodePool({ workers: 2, idleMs: 50, logger: failures, workerModule: path.join(t.root, 'missing-worker.ts') });
    const events = writeMixedConversation();
    const { onMainThread, inWorkers } = decodersOver(events);
    const files = ['event-00000', 'event-00040', 'event-00047'].map(
      (prefix) =>
        parseEventFileName(
          require('node:fs')
            .readdirSync(events)
            .find((name: string) => name.startsWith(prefix)),
        )!,
    );

    const decoded = await inWorkers.decode(files);
    await inWorkers.decode(files);

    expect(decoded).toEqual(await onMainThread.decode(files));
    expect(decoded.files).toEqual([
      expect.objectContaining({ position: 0 }),
      { because: 'broken', reason: 'not valid JSON (truncated or corrupt)' },
      { because: 'broken', reason: 'symbolic link to a file outside the conversations directory, not followed' },
    ]);
    expect(pool.usable).toBe(false);
    expect(failures.lines.filter((line) => line.includes('decode workers failed'))).toHaveLength(1);
  });
});
