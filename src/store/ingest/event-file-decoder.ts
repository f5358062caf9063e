/**
 * Reads event files and decodes them into the rows the ingester writes. Reading, parsing
 * and checking a file costs about as much as storing its row, so the batches of a long
 * conversation are decoded on a thread of its own (decoding-thread.ts) a few batches ahead
 * of the ingester's thread, which writes the batches before (BatchesAhead): on two cores
 * the two run side by side. The thread's answers wait on a port of their own until the
 * ingester reads them. The caller says where each batch goes (DecodeOn); a batch of a few
 * files (an append being followed) is decoded on the calling thread whatever it says,
 * where it costs less than the round trip to the other.
 *
 * Both threads run the same function (decodeEventFile) on the same reader
 * (files/event-file-reader.ts): only regular files, opened without blocking and without
 * following links. A symbolic link is followed here, on the ingester's thread, and only to
 * a target inside the root; the decoding thread reports it and reads nothing through it.
 *
 * Should the decoding thread fail (it could not start, it ran out of memory), the batches
 * it had and every later one are decoded on the calling thread, in time slices.
 */
import path from 'node:path';
import { MessageChannel, type MessagePort, type Worker, receiveMessageOnPort } from 'node:worker_threads';
import { startModuleWorker } from '../../worker-thread';
import type { EventFileName } from '../files/event-file-name';
import { EventsDirectory, readEventFile, readEventFileNow, SCRATCH_BYTES, versionOfPath } from '../files/event-file-reader';
import { TimeSlice } from '../files/time-slice';
import type { StoredEventMode } from '../stored-event/decide';
import { type EventRow, type RowMemory, type Unserved, eventRowOf } from './event-row';

/** What became of one event file. */
export type DecodedFile =
  /** For a link read through, the row's size and time are the link's own. */
  | { kind: 'row'; row: EventRow }
  /** Deleted since it was listed. */
  | { kind: 'gone' }
  | { kind: 'unreadable'; reason: string }
  /** Read, and not served (stored-event/decide.ts says why). */
  | { kind: 'unserved'; because: Unserved; reason: string };

/** What the decoding thread answers for a symbolic link: the ingester's thread follows it. */
type DecodedHere = DecodedFile | { kind: 'link' };

/** A batch sent to the decoding thread. */
export interface DecodeRequest {
  id: number;
  directory: string;
  /** The conversations directory, resolved: no file opened outside it is read. */
  realRoot: string;
  files: EventFileName[];
}

/**
 * Its answer. The rows' bytes (payloads and searched texts) are views of a few buffers,
 * moved (not copied) to the ingester's thread with the message.
 */
export interface DecodeReply {
  id: number;
  decoded: DecodedHere[];
}

/** Where a batch is decoded: on the calling thread or on the decoding thread. */
export type DecodeOn = 'caller' | 'thread';

/** The thread's workerData: how it decodes, and the port it answers on. */
export interface DecodingThreadData {
  mode: StoredEventMode;
  answers: MessagePort;
}

/** A batch's decoded files, read when called: a batch waiting to be written waits as a message, outside this thread's heap. */
type Answer = () => DecodedHere[];

/** Batches of fewer files are decoded on the calling thread, unless the decoder is told otherwise. */
const DECODED_HERE_BELOW = 64;
/** How long decoding on the calling thread runs before other work (requests, the previous batch's statements) gets a turn. */
const DECODE_SLICE_MS = 5;
const DECODING_THREAD = path.join(__dirname, `decoding-thread${path.extname(__filename)}`);

/**
 * One event file of `directory`, read on the calling thread and decoded; its row's bytes
 * are kept in `memory`. Never throws: every failure is a kind of result. A symbolic link is
 * not read (`link`): see readLinkedFile.
 */
export function decodeEventFile(
  directory: EventsDirectory,
  file: EventFileName,
  mode: StoredEventMode,
  scratch: Buffer,
  memory?: RowMemory,
): DecodedHere {
  const read = readEventFileNow(directory, file.name, scratch);
  if (read === undefined) return { kind: 'link' };
  if (read.kind !== 'bytes') return read;
  return decodedOf(eventRowOf(read.bytes, file, mode, read.version, memory));
}

function decodedOf(decoded: ReturnType<typeof eventRowOf>): DecodedFile {
  if (!decoded.ok) return { kind: 'unserved', because: decoded.because, reason: decoded.reason };
  return { kind: 'row', row: decoded.row };
}

export class EventFileDecoder {
  private readonly scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
  private thread: Worker | undefined;
  /** Where the decoding thread's answers wait until they are read (answerOf). */
  private answers: MessagePort | undefined;
  /** Answers read from the port ahead of the one sought, by batch. */
  private readonly answersRead = new Map<number, DecodedHere[]>();
  private threadStopped = false;
  private nextId = 0;
  /** Batches sent to the decoding thread and not answered yet. */
  private readonly waiting = new Map<number, { request: DecodeRequest; answered: (answer: Answer) => void }>();

  /** `decodedHereBelow`: batches of fewer files are decoded on the calling thread. */
  constructor(
    private readonly mode: StoredEventMode,
    private readonly decodedHereBelow = DECODED_HERE_BELOW,
  ) {}

  /**
   * The files of `directory`, decoded, in the order given; a link is followed only to a
   * file inside `realRoot`. `on` says where.
   */
  async decode(directory: string, files: EventFileName[], realRoot: string, on: DecodeOn = 'thread'): Promise<DecodedFile[]> {
    if (on === 'caller') return this.withLinksRead(directory, files, realRoot, await this.decodeHere(directory, realRoot, files));
    return (await this.decodeLater(directory, files, realRoot))();
  }

  /** The batches of one long read of `directory`, decoded ahead of the caller by both threads (BatchesAhead). */
  ahead(directory: string, realRoot: string, batches: EventFileName[][]): BatchesAhead {
    return new BatchesAhead(batches, {
      now: (files) => this.decode(directory, files, realRoot, 'caller'),
      later: (files) => this.decodeLater(directory, files, realRoot),
    });
  }

  /**
   * Starts the decoding thread ahead of a long read: its start (loading its modules) then
   * runs beside the caller's work before the first batch instead of after it.
   */
  startThread(): void {
    if (!this.threadStopped) this.decodingThread();
  }

  /** Stops the decoding thread; what it had not answered, and any later batch, is decoded on the calling thread. */
  close(): void {
    this.stopThread();
  }

  /**
   * Resolves once the files are decoded, on the decoding thread unless the batch is small
   * or the thread stopped, with a function that reads them (and follows links).
   */
  private async decodeLater(directory: string, files: EventFileName[], realRoot: string): Promise<() => Promise<DecodedFile[]>> {
    let answer: Answer;
    if (files.length < this.decodedHereBelow || this.threadStopped) {
      const decoded = await this.decodeHere(directory, realRoot, files);
      answer = () => decoded;
    } else answer = await this.decodeThere(directory, realRoot, files);
    return () => this.withLinksRead(directory, files, realRoot, answer());
  }

  private async withLinksRead(directory: string, files: EventFileName[], realRoot: string, decoded: DecodedHere[]): Promise<DecodedFile[]> {
    const results: DecodedFile[] = [];
    for (const [at, result] of decoded.entries())
      results.push(result.kind === 'link' ? await this.readLinkedFile(path.join(directory, files[at]!.name), files[at]!, realRoot) : result);
    return results;
  }

  private async decodeHere(directory: string, realRoot: string, files: readonly EventFileName[]): Promise<DecodedHere[]> {
    const decoded: DecodedHere[] = [];
    const slice = new TimeSlice(DECODE_SLICE_MS);
    const opened = EventsDirectory.open(directory, realRoot);
    try {
      for (const file of files) {
        if (slice.isOver()) await slice.yield();
        decoded.push(decodeEventFile(opened, file, this.mode, this.scratch));
      }
    } finally {
      opened.close();
    }
    return decoded;
  }

  private decodeThere(directory: string, realRoot: string, files: EventFileName[]): Promise<Answer> {
    const thread = this.decodingThread();
    const request: DecodeRequest = { id: this.nextId++, directory, realRoot, files };
    return new Promise((answered) => {
      this.waiting.set(request.id, { request, answered });
      // The thread keeps the process alive only while it has work: an ingest run waiting for it must not end.
      thread.ref();
      thread.postMessage(request);
    });
  }

  /** The decoding thread's answer for batch `id`, read from its port; answers before it are kept for their readers. */
  private answerOf(id: number): DecodedHere[] {
    for (;;) {
      const kept = this.answersRead.get(id);
      if (kept) {
        this.answersRead.delete(id);
        return kept;
      }
      const message = this.answers && receiveMessageOnPort(this.answers);
      if (!message) throw new Error(`the decoding thread's answer for batch ${id} is missing`);
      this.keep(message.message as DecodeReply);
    }
  }

  private keep(reply: DecodeReply): void {
    for (const result of reply.decoded) {
      if (result.kind !== 'row') continue;
      result.row.payload = asBuffer(result.row.payload);
      result.row.searchText = asBuffer(result.row.searchText);
    }
    this.answersRead.set(reply.id, reply.decoded);
  }

  private decodingThread(): Worker {
    if (this.thread) return this.thread;
    const { port1: answers, port2: threadAnswers } = new MessageChannel();
    const data: DecodingThreadData = { mode: this.mode, answers: threadAnswers };
    const thread = startModuleWorker(DECODING_THREAD, data, [threadAnswers]);
    // Held only while it has work (decodeThere): an ingest run ends once its work is done.
    thread.unref();
    thread.on('message', (id: number) => {
      const waiting = this.waiting.get(id);
      if (!waiting) return;
      this.waiting.delete(id);
      if (this.waiting.size === 0) thread.unref();
      waiting.answered(() => this.answerOf(id));
    });
    thread.on('error', () => this.stopThread());
    thread.on('exit', () => this.stopThread());
    this.thread = thread;
    this.answers = answers;
    return thread;
  }

  private stopThread(): void {
    this.threadStopped = true;
    const thread = this.thread;
    this.thread = undefined;
    void thread?.terminate();
    // What it answered stays readable: its answers are taken off the port before the port is let go.
    for (let message = this.answers && receiveMessageOnPort(this.answers); message; message = receiveMessageOnPort(this.answers!))
      this.keep(message.message as DecodeReply);
    this.answers?.close();
    this.answers = undefined;
    const unanswered = [...this.waiting.values()];
    this.waiting.clear();
    for (const { request, answered } of unanswered)
      void this.decodeHere(request.directory, request.realRoot, request.files).then((decoded) => answered(() => decoded));
  }

  /**
   * A symbolic link, read through when its target is inside the root; its version is the
   * link's own, as the ingester compares it. Read into a scratch of its own: the read
   * waits on the thread pool, and meanwhile this thread may decode the next batch into
   * the shared one.
   */
  private async readLinkedFile(filePath: string, file: EventFileName, realRoot: string): Promise<DecodedFile> {
    const version = versionOfPath(filePath);
    const read = await readEventFile(filePath, realRoot, Buffer.allocUnsafe(SCRATCH_BYTES));
    if (read.kind !== 'bytes') return read;
    return decodedOf(eventRowOf(read.bytes, file, this.mode, version));
  }
}

/** A row's bytes cross from the decoding thread as a plain Uint8Array view; the database drivers take Buffers. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Batches decoded while the caller writes the ones before: the decoding thread is handed
 * each batch BATCHES_AHEAD batches before the caller takes it, so neither thread waits for
 * the other over a batch that took one of them longer, and a batch decoded early waits as
 * the thread's message, read only when taken (were it read on arrival, the batches held
 * would outlive the young generation and swell the old one). The first batch, when the
 * caller has nothing to write yet, is decoded half by each.
 */
export class BatchesAhead {
  private readonly queued: { head: EventFileName[]; tail: Promise<() => Promise<DecodedFile[]>> }[] = [];
  private next = 0;

  constructor(
    private readonly batches: EventFileName[][],
    private readonly decode: {
      now: (files: EventFileName[]) => Promise<DecodedFile[]>;
      later: (files: EventFileName[]) => Promise<() => Promise<DecodedFile[]>>;
    },
  ) {
    while (this.queued.length <= BATCHES_AHEAD && this.next < batches.length) this.queue();
  }

  /** The next batch's decoded files, in order; rejects if decoding it failed. */
  async take(): Promise<DecodedFile[]> {
    const batch = this.queued.shift();
    if (!batch) throw new Error('no batch left to decode');
    if (this.next < this.batches.length) this.queue();
    const head = batch.head.length === 0 ? [] : await this.decode.now(batch.head);
    const tail = await (await batch.tail)();
    return [...head, ...tail];
  }

  /**
   * Lets go of the batches not taken, for a read given up: their answers are read and
   * dropped as they come, so none is left waiting on the decoding thread's port.
   */
  discard(): void {
    for (const { tail } of this.queued.splice(0)) void tail.then((read) => read()).catch(() => undefined);
    this.next = this.batches.length;
  }

  private queue(): void {
    const first = this.next === 0;
    const files = this.batches[this.next++]!;
    const split = first ? Math.floor(files.length / 2) : 0;
    const tail = this.decode.later(files.slice(split));
    // A failure is the caller's to see when it takes the batch, not an unhandled rejection before.
    tail.catch(() => undefined);
    this.queued.push({ head: files.slice(0, split), tail });
  }
}

/** Batches handed to the decoding thread beyond the one being taken. */
const BATCHES_AHEAD = 3;
