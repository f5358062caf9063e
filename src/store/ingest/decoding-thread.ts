/**
 * The decoding thread (event-file-decoder.ts starts it): reads and decodes each batch of
 * event files it is sent, and answers with the results in the same order, on the port of
 * answers it was given; then says which batch it answered on the port it was sent it by.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { EventsDirectory, SCRATCH_BYTES } from '../files/event-file-reader';
import { type DecodeReply, type DecodeRequest, type DecodingThreadData, decodeEventFile } from './event-file-decoder';

if (!parentPort) throw new Error('decoding-thread.ts runs as a worker thread; event-file-decoder.ts starts it');
const port = parentPort;
const { mode, answers } = workerData as DecodingThreadData;
const scratch = Buffer.allocUnsafe(SCRATCH_BYTES);

port.on('message', ({ id, directory, realRoot, files }: DecodeRequest) => {
  const payloads = new PayloadChunks();
  const opened = EventsDirectory.open(directory, realRoot);
  let decoded: DecodeReply['decoded'];
  try {
    decoded = files.map((file) => decodeEventFile(opened, file, mode, scratch, payloads.keep));
  } finally {
    opened.close();
  }
  const reply: DecodeReply = { id, decoded };
  answers.postMessage(reply, payloads.buffers);
  port.postMessage(id);
});

/** Chunks hold nearly every batch's payloads in one or two. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * The served bytes of a batch, each copied once, from the scratch buffer into chunks whose
 * memory moves with the answer: a payload in a buffer of its own would be copied again
 * when posted, with the whole pool slab it sits in.
 */
class PayloadChunks {
  readonly buffers: ArrayBuffer[] = [];
  private chunk = Buffer.alloc(0);
  private used = 0;

  readonly keep = (served: Buffer): Buffer => {
    if (served.length > this.chunk.length - this.used) {
      this.chunk = Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, served.length));
      this.used = 0;
      this.buffers.push(this.chunk.buffer as ArrayBuffer);
    }
    const kept = this.chunk.subarray(this.used, this.used + served.length);
    served.copy(kept);
    this.used += served.length;
    return kept;
  };
}
