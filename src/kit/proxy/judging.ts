/**
 * The proxy's side of its judging thread (judging-worker.ts): hands each forwarded exchange
 * over, keeps what has not been answered yet within a bound, and at the end waits for the
 * answers still due and collects the session's coverage.
 */
import path from 'node:path';
import { type OpenApiDocument, operationTable } from '../../contract';
import { startModuleWorker } from '../../worker-thread';
import { createCoverageRecorder, type Coverage } from '../coverage';
import type { JudgingReply, JudgingRequest } from './judging-messages';

/** Bodies waiting for the judging thread, at most; past it, exchanges are counted as not judged. */
const MAX_WAITING_BYTES = 128 * 1024 * 1024;
/** How long finishing waits for the judgements still running. */
const DRAIN_MS = 10_000;
/** The judging thread's module beside this one: `.ts` under tsx or ts-jest, `.js` once compiled. */
const JUDGING_WORKER = path.join(__dirname, `judging-worker${path.extname(__filename)}`);

/** What the proxy remembers of an exchange while it is judged. */
export interface ForwardedExchange {
  seq: number;
  method: string;
  target: string;
  status: number;
  /** The response's Content-Type header; null when it had none. */
  contentType: string | null;
  withKey: boolean;
}

export interface Judging {
  /** Hands an exchange to the judging thread; `body` is transferred. */
  judge(exchange: ForwardedExchange, body: Buffer | undefined): void;
  readonly unjudged: number;
  /** The coverage as of the last `finish`. */
  readonly coverage: Coverage;
  /** Waits for the judgements running (at most DRAIN_MS), collects the coverage and stops the thread. */
  finish(): Promise<void>;
}

/** The judging thread and the exchanges it has not answered yet. */
export function startJudging(
  document: OpenApiDocument,
  onVerdict: (exchange: ForwardedExchange, verdict: { operationId: string | undefined; violations: string[] }) => void,
): Judging {
  const waiting = new Map<number, { exchange: ForwardedExchange; bytes: number }>();
  let waitingBytes = 0;
  let unjudged = 0;
  let coverage = createCoverageRecorder(operationTable(document)).summary();
  let failed = false;
  let whenDrained: (() => void) | undefined;
  let whenCoverage: (() => void) | undefined;
  const worker = startModuleWorker(JUDGING_WORKER, document);
  const giveUp = () => {
    if (failed) return;
    failed = true;
    unjudged += waiting.size;
    waiting.clear();
    whenDrained?.();
    whenCoverage?.();
  };
  worker.on('error', giveUp);
  worker.on('exit', giveUp);
  worker.on('message', (reply: JudgingReply) => {
    if (reply.kind === 'coverage') {
      coverage = reply.coverage;
      whenCoverage?.();
      return;
    }
    const entry = waiting.get(reply.seq);
    if (!entry) return;
    waiting.delete(reply.seq);
    waitingBytes -= entry.bytes;
    onVerdict(entry.exchange, reply);
    if (waiting.size === 0) whenDrained?.();
  });
  const send = (request: JudgingRequest, transfer: ArrayBuffer[] = []) => worker.postMessage(request, transfer);
  return {
    judge(exchange, body) {
      const bytes = body?.length ?? 0;
      if (failed || waitingBytes + bytes > MAX_WAITING_BYTES) {
        unjudged += 1;
        return;
      }
      waiting.set(exchange.seq, { exchange, bytes });
      waitingBytes += bytes;
      const { seq, method, target, status, contentType } = exchange;
      send({ kind: 'exchange', seq, method, target, status, contentType, body }, body ? [body.buffer as ArrayBuffer] : []);
    },
    get unjudged() {
      return unjudged;
    },
    get coverage() {
      return coverage;
    },
    async finish() {
      if (!failed) {
        if (waiting.size > 0) await withTimeout(new Promise<void>((resolve) => (whenDrained = resolve)));
        const collected = new Promise<void>((resolve) => (whenCoverage = resolve));
        send({ kind: 'coverage' });
        await withTimeout(collected);
      }
      unjudged += waiting.size;
      waiting.clear();
      worker.removeAllListeners('exit');
      await worker.terminate();
    },
  };
}

function withTimeout(promise: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, DRAIN_MS)))]).finally(() => clearTimeout(timer));
}

/** The chunks in a buffer of their own, which can be transferred (a small Buffer may share Node's pool). */
export function ownBuffer(chunks: readonly Buffer[], size: number): Buffer {
  const body = Buffer.allocUnsafeSlow(size);
  let at = 0;
  for (const chunk of chunks) at += chunk.copy(body, at);
  return body;
}
