/**
 * The decoding thread (event-file-decoder.ts starts it): reads and decodes each batch of
 * event files it is sent, and answers with the results in the same order.
 */
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { SCRATCH_BYTES } from '../files/event-file-reader';
import { type DecodeReply, type DecodeRequest, type DecodingThreadData, decodeEventFile } from './event-file-decoder';

if (!parentPort) throw new Error('decoding-thread.ts runs as a worker thread; event-file-decoder.ts starts it');
const port = parentPort;
const { mode } = workerData as DecodingThreadData;
const scratch = Buffer.allocUnsafe(SCRATCH_BYTES);

port.on('message', ({ id, directory, files }: DecodeRequest) => {
  const decoded = files.map((file) => decodeEventFile(path.join(directory, file.name), file, mode, scratch));
  // Every payload is copied into one buffer whose memory moves with the message: a payload
  // of its own would be copied again when posted, with the whole pool slab it sits in.
  const rows = decoded.flatMap((result) => (result.kind === 'row' ? [result.row] : []));
  const payloads = Buffer.allocUnsafeSlow(rows.reduce((sum, row) => sum + row.payload.length, 0));
  let offset = 0;
  for (const row of rows) {
    row.payload.copy(payloads, offset);
    row.payload = payloads.subarray(offset, offset + row.payload.length);
    offset += row.payload.length;
  }
  const reply: DecodeReply = { id, decoded };
  port.postMessage(reply, [payloads.buffer]);
});
