/**
 * The decoding thread (event-file-decoder.ts starts it): reads and decodes each batch of
 * event files it is sent, and answers with the results in the same order, on the port of
 * answers it was given; then says which batch it answered on the port it was sent it by.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { EventsDirectory, SCRATCH_BYTES } from '../files/event-file-reader';
import { type DecodeReply, type DecodeRequest, type DecodingThreadData, decodeEventFile } from './event-file-decoder';
import type { RowMemory } from './event-row';

if (!parentPort) throw new Error('decoding-thread.ts runs as a worker thread; event-file-decoder.ts starts it');
const port = parentPort;
const { mode, answers } = workerData as DecodingThreadData;
const scratch = Buffer.allocUnsafe(SCRATCH_BYTES);

port.on('message', ({ id, directory, realRoot, files }: DecodeRequest) => {
  const memory = new MovedChunks();
  const opened = EventsDirectory.open(directory, realRoot);
  let decoded: DecodeReply['decoded'];
  try {
    decoded = files.map((file) => decodeEventFile(opened, file, mode, scratch, memory));
  } finally {
    opened.close();
  }
  const reply: DecodeReply = { id, decoded };
  answers.postMessage(reply, memory.buffers);
  port.postMessage(id);
});

/** Chunks hold nearly every batch's rows in a few. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * A batch's row bytes, each written once, into chunks whose memory moves with the answer:
 * the served bytes copied from the scratch buffer, the searched texts encoded. A payload in
 * a buffer of its own would be copied again when posted, with the whole pool slab it sits
 * in; a text as a string would be copied twice, into the message and out of it.
 */
class MovedChunks implements RowMemory {
  readonly buffers: ArrayBuffer[] = [];
  private chunk = Buffer.alloc(0);
  private used = 0;

  bytes(served: Buffer): Buffer {
    const kept = this.take(served.length);
    served.copy(kept);
    return kept;
  }

  text(text: string): Buffer {
    // Written in place where the chunk has room for the longest encoding (three bytes a UTF-16 unit), else measured first.
    if (this.chunk.length - this.used >= text.length * 3) return this.take(this.chunk.write(text, this.used));
    const encoded = this.take(Buffer.byteLength(text));
    encoded.write(text);
    return encoded;
  }

  /** The next `length` bytes of the chunk, in a new chunk when they do not fit. */
  private take(length: number): Buffer {
    if (length > this.chunk.length - this.used) {
      this.chunk = Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, length));
      this.used = 0;
      this.buffers.push(this.chunk.buffer as ArrayBuffer);
    }
    const taken = this.chunk.subarray(this.used, this.used + length);
    this.used += length;
    return taken;
  }
}
