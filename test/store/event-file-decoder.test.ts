/**
 * The event file decoder decodes a batch on a thread of its own, or a small batch on the
 * calling thread: both must make the same of every file, hostile ones included (a named
 * pipe, a directory, links inside and outside the root and to nothing, broken, deep and
 * large events), batches decoded ahead by both threads come out in order, and a decoder
 * whose thread is stopped mid-way still answers.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventFileName, serializeEvent } from '../../src/fixture/layout';
import { parseEventFileName } from '../../src/store/files/event-file-name';
import { type DecodedFile, EventFileDecoder } from '../../src/store/ingest/event-file-decoder';
import { eventId, message } from '../support/events';

const say = (n: number, text: string) =>
  message({ id: eventId(n), timestamp: `2026-09-01T10:00:${String(n % 60).padStart(2, '0')}`, source: 'user' }, { text: [text] });

let root: string;
let outside: string;
let events: string;
const names: string[] = [];
const files = () => names.map((name) => parseEventFileName(name)!);

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'event-file-decoder-')));
  outside = mkdtempSync(path.join(os.tmpdir(), 'event-file-decoder-outside-'));
  events = path.join(root, 'conversation', 'events');
  mkdirSync(events, { recursive: true });
  const write = (n: number, text: string) => {
    const name = eventFileName(n, eventId(n));
    writeFileSync(path.join(events, name), text);
    names.push(name);
    return name;
  };
  for (let n = 0; n < 70; n++) write(n, serializeEvent(say(n, `event number ${n}`)));
  write(70, serializeEvent(say(70, 'x'.repeat(200_000))));
  write(71, '{"id": "truncated');
  write(72, `{"id":"${eventId(72)}","kind":"PauseEvent","timestamp":"2026-09-01T11:00:00","deep":${'{"a":'.repeat(6000)}1${'}'.repeat(6000)}}`);
  write(73, serializeEvent(say(73, 'a kind this contract has not')).replace('MessageEvent', 'FutureEvent'));
  write(74, '');
  const special = (n: number, make: (file: string) => void) => {
    const name = eventFileName(n, eventId(n));
    make(path.join(events, name));
    names.push(name);
  };
  special(75, (file) => execFileSync('mkfifo', [file]));
  special(76, (file) => mkdirSync(file));
  writeFileSync(path.join(root, 'inside.json'), serializeEvent(say(77, 'read through a link inside the root')));
  special(77, (file) => symlinkSync(path.join(root, 'inside.json'), file));
  writeFileSync(path.join(outside, 'outside.json'), serializeEvent(say(78, 'OUTSIDE')));
  special(78, (file) => symlinkSync(path.join(outside, 'outside.json'), file));
  special(79, (file) => symlinkSync(path.join(root, 'missing.json'), file));
  names.push(eventFileName(80, eventId(80)));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

async function decodeAll(decodedHereBelow: number): Promise<DecodedFile[]> {
  const decoder = new EventFileDecoder('contract', decodedHereBelow);
  try {
    return await decoder.decode(events, files(), root);
  } finally {
    decoder.close();
  }
}

/** The results with each payload as text, comparable across threads. */
function comparable(decoded: DecodedFile[]): unknown[] {
  return decoded.map((result) =>
    result.kind === 'row' ? { ...result, row: { ...result.row, payload: result.row.payload.toString('utf8') } } : result,
  );
}

test('a batch decoded on the decoding thread is what the calling thread makes of it, hostile files included', async () => {
  const there = await decodeAll(0);
  const here = await decodeAll(Number.POSITIVE_INFINITY);
  expect(comparable(there)).toEqual(comparable(here));
  const at = (n: number) => there[names.indexOf(eventFileName(n, eventId(n)))]!;
  expect(there.slice(0, 70).every((result) => result.kind === 'row')).toBe(true);
  expect(at(70)).toMatchObject({ kind: 'row', row: { eventId: eventId(70) } });
  expect(at(71)).toMatchObject({ kind: 'unserved', because: 'broken' });
  // Served or skipped, as the stack allows; the same on both threads, as compared above.
  expect(['row', 'unserved']).toContain(at(72).kind);
  expect(at(73)).toMatchObject({ kind: 'unserved', because: 'unknown-kind' });
  expect(at(74)).toMatchObject({ kind: 'unserved', because: 'broken', reason: 'empty file' });
  // Opened without blocking and refused before any read: a pipe is not a regular file, with a writer or without.
  expect(at(75)).toEqual({ kind: 'unreadable', reason: 'not a regular file' });
  expect(at(76)).toEqual({ kind: 'unreadable', reason: 'not a regular file' });
  expect(at(77)).toMatchObject({ kind: 'row', row: { eventId: eventId(77) } });
  expect(at(78)).toEqual({ kind: 'unreadable', reason: 'symbolic link to a file outside the conversations directory, not followed' });
  expect(at(79)).toEqual({ kind: 'unreadable', reason: 'symbolic link to a missing file' });
  expect(at(80)).toEqual({ kind: 'gone' });
});

test('a decoder whose thread is stopped while it decodes answers on the calling thread', async () => {
  const decoder = new EventFileDecoder('contract', 0);
  const decoding = decoder.decode(events, files(), root);
  decoder.close();
  expect(comparable(await decoding)).toEqual(comparable(await decodeAll(Number.POSITIVE_INFINITY)));
});

/** The files in batches of `size`, the last one shorter. */
function inBatches(size: number): ReturnType<typeof files>[] {
  const batches: ReturnType<typeof files>[] = [];
  for (let start = 0; start < names.length; start += size) batches.push(files().slice(start, start + size));
  return batches;
}

test('batches decoded ahead, the first split between the two threads, come out in order, each file as the calling thread alone makes it', async () => {
  const decoder = new EventFileDecoder('contract', 0);
  const batches = inBatches(7);
  try {
    const ahead = decoder.ahead(events, root, batches);
    const decoded: DecodedFile[] = [];
    for (let taken = 0; taken < batches.length; taken++) decoded.push(...(await ahead.take()));
    expect(comparable(decoded)).toEqual(comparable(await decodeAll(Number.POSITIVE_INFINITY)));
    await expect(ahead.take()).rejects.toThrow('no batch left');
  } finally {
    decoder.close();
  }
});

test('a read given up after its first batch leaves the decoder answering the next read whole and in order', async () => {
  const decoder = new EventFileDecoder('contract', 0);
  const batches = inBatches(7);
  try {
    const givenUp = decoder.ahead(events, root, batches);
    await givenUp.take();
    givenUp.discard();
    await expect(givenUp.take()).rejects.toThrow('no batch left');
    expect(comparable(await decoder.decode(events, files(), root))).toEqual(comparable(await decodeAll(Number.POSITIVE_INFINITY)));
  } finally {
    decoder.close();
  }
});

test.each([
  ['the decoding thread', 0],
  ['the calling thread', Number.POSITIVE_INFINITY],
])(
  'on %s, files reached through a directory that leads out of the root are not read, though their names were listed inside it',
  async (_name, decodedHereBelow) => {
    // What the reads meet when `events/` is swapped for a link out of the root after the look that listed it.
    const swapped = path.join(root, 'swapped');
    const elsewhere = path.join(outside, 'elsewhere');
    mkdirSync(elsewhere, { recursive: true });
    const names = [1, 2].map((n) => eventFileName(n, eventId(n)));
    for (const [index, name] of names.entries()) writeFileSync(path.join(elsewhere, name), serializeEvent(say(index + 1, 'OUTSIDE')));
    symlinkSync(elsewhere, swapped);
    const decoder = new EventFileDecoder('contract', decodedHereBelow);
    try {
      const decoded = await decoder.decode(
        swapped,
        names.map((name) => parseEventFileName(name)!),
        root,
      );
      expect(decoded).toEqual(
        names.map(() => ({ kind: 'unreadable', reason: 'reached through a link out of the conversations directory, not read' })),
      );
    } finally {
      decoder.close();
      rmSync(swapped);
    }
  },
);
