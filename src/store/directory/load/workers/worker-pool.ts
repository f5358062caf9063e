/**
 * The decode workers (worker.ts): threads that read and decode the files of large loads, so
 * that the main thread only applies them to the index, a small part of the work, and keeps
 * serving requests meanwhile. The pool also knows when the store last answered a request
 * (`mainThreadIsFree`), which decides whether the main thread decodes beside them.
 *
 * Workers start with the first job and stop once the pool has been idle for
 * `LOAD_POLICY.workersIdleMs`, or when a large load is over (stopIfIdle): each holds a heap
 * of its own and its own copy of the contract's validator (it reports how much after every
 * job) and costs CPU to start, so they are kept for a burst of loads, not for the process's
 * life. A worker that fails (tsx missing, a crash) disables the pool for good, with one
 * warning; jobs then reject and the caller decodes on the main thread.
 */
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { Logger } from '../../../../log';
import type { DecodeJob, DecodeReply } from './worker-messages';
import { LOAD_POLICY } from '../load-policy';
import type { ItemsJson } from '../../memory/items-json';
import type { DecodedFiles } from '../read-and-decode';
import { unpackBatch } from './batch-transfer';
import { startModuleWorker } from '../../../../worker-thread';

/** The worker's module beside this one: `.ts` under tsx or ts-jest, `.js` once compiled. */
const WORKER_MODULE = path.join(__dirname, `worker${path.extname(__filename)}`);

/** A worker's heap before its first job: its isolate and the modules it loaded. */
const FRESH_WORKER_BYTES = 8 * 1024 * 1024;

export interface DecodePoolOptions {
  workers: number;
  /** Idle time after which the workers stop; `LOAD_POLICY.workersIdleMs` unless a test needs another. */
  idleMs?: number;
  logger: Logger;
  /** The module each worker runs; worker.ts unless a test starts something else. */
  workerModule?: string;
}

export interface DecodedBatch {
  decoded: DecodedFiles<ItemsJson>;
  readsOnThreadPool: boolean;
}

export class DecodePool {
  private workers: PoolWorker[] = [];
  private nextJobId = 1;
  private idleTimer: NodeJS.Timeout | undefined;
  private failed = false;
  private closed = false;
  /** Files decoded on the main thread since `recentStartedAt` (see noteMainThreadLoad). */
  private recentFiles = 0;
  private recentStartedAt = Number.NEGATIVE_INFINITY;
  /** When the store last answered a request from a conversation already loaded (see mainThreadIsFree). */
  private lastRequestAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: DecodePoolOptions) {}

  /** False once a worker failed or the pool was closed: jobs would only reject. */
  get usable(): boolean {
    return !this.failed && !this.closed;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get workerCount(): number {
    return this.options.workers;
  }

  /** Workers started and not yet stopped. */
  get running(): number {
    return this.workers.length;
  }

  /** What the running workers' heaps held after their last job: part of what the store holds. */
  get memoryBytes(): number {
    return this.workers.reduce((sum, worker) => sum + worker.heapBytes, 0);
  }

  /** The store answered a request: large loads leave the main thread to requests for a while. */
  noteRequestServed(): void {
    this.lastRequestAt = performance.now();
  }

  /** Whether no request was answered lately, so the main thread may decode its share of a large load (directory/load/where-batches-decode.ts). */
  get mainThreadIsFree(): boolean {
    return performance.now() - this.lastRequestAt > LOAD_POLICY.mainThreadHelpsAfterQuietMs;
  }

  /** Decodes on the least busy worker, starting the workers if they are stopped. */
  async decode(job: Omit<DecodeJob, 'jobId'>): Promise<DecodedBatch> {
    if (!this.usable) throw new Error('The decode workers are not available');
    clearTimeout(this.idleTimer);
    try {
      return await this.leastBusyWorker().run({ ...job, jobId: this.nextJobId++ });
    } finally {
      if (this.workers.every((worker) => worker.pending === 0)) this.stopWhenIdle();
    }
  }

  /**
   * Hears of a load decoded on the main thread. Many small loads add up to a large one (a
   * client opening conversation after conversation, or a memory budget reading dropped ones
   * again): once `warmFrom` files were decoded so within a second, the workers are started,
   * and loads then share them while they keep coming (see `running`).
   */
  noteMainThreadLoad(files: number, warmFrom: number): void {
    const now = performance.now();
    if (now - this.recentStartedAt > LOAD_POLICY.recentLoadsWindowMs) {
      this.recentStartedAt = now;
      this.recentFiles = 0;
    }
    this.recentFiles += files;
    if (this.recentFiles >= warmFrom) this.warm();
  }

  /**
   * Starts the workers ahead of a large load, so that their start overlaps the listing of
   * the directory. They stop after `LOAD_POLICY.warmWorkersWaitMs` if no job comes.
   */
  warm(): void {
    if (!this.usable || this.workers.length > 0) return;
    try {
      this.startWorkers();
    } catch {
      return;
    }
    this.stopWhenIdle(LOAD_POLICY.warmWorkersWaitMs);
  }

  /**
   * Stops the workers now when no job is running: called when a large load is over, so
   * that the process holds the conversation and not, besides it, the workers' heaps until
   * the idle timer fires. Loads still running keep them.
   */
  async stopIfIdle(): Promise<void> {
    if (this.workers.every((worker) => worker.pending === 0)) await this.stopWorkers();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.stopWorkers();
  }

  private leastBusyWorker(): PoolWorker {
    if (this.workers.length === 0) this.startWorkers();
    return this.workers.reduce((least, worker) => (worker.pending < least.pending ? worker : least));
  }

  private startWorkers(): void {
    try {
      for (let i = 0; i < this.options.workers; i++)
        this.workers.push(new PoolWorker(startModuleWorker(this.options.workerModule ?? WORKER_MODULE), (error) => this.fail(error)));
    } catch (error) {
      this.fail(error);
      throw error;
    }
  }

  private stopWhenIdle(idleMs = this.options.idleMs ?? LOAD_POLICY.workersIdleMs): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.stopWorkers(), idleMs).unref();
  }

  private fail(error: unknown): void {
    if (this.failed || this.closed) return;
    this.failed = true;
    this.options.logger.warn('decode workers failed; large loads are decoded on the main thread from now on', {
      error: (error as Error)?.message ?? String(error),
    });
    void this.stopWorkers();
  }

  private async stopWorkers(): Promise<void> {
    clearTimeout(this.idleTimer);
    const workers = this.workers;
    this.workers = [];
    await Promise.all(workers.map((worker) => worker.stop()));
  }
}

interface PendingJob {
  resolve: (batch: DecodedBatch) => void;
  reject: (error: Error) => void;
}

/** One worker and its jobs in flight. It keeps the process alive only while it has some. */
class PoolWorker {
  private readonly jobs = new Map<number, PendingJob>();
  private stopping = false;
  /** As the worker last reported it; before its first reply, what a fresh worker holds. */
  heapBytes = FRESH_WORKER_BYTES;

  constructor(
    private readonly worker: Worker,
    onFailure: (error: Error) => void,
  ) {
    worker.unref();
    worker.on('message', (reply: DecodeReply) => this.settle(reply));
    worker.on('error', (error) => {
      this.rejectAll(error);
      onFailure(error);
    });
    worker.on('exit', (code) => {
      const error = new Error(`A decode worker exited (code ${code})`);
      this.rejectAll(error);
      if (!this.stopping) onFailure(error);
    });
  }

  get pending(): number {
    return this.jobs.size;
  }

  run(job: DecodeJob): Promise<DecodedBatch> {
    return new Promise((resolve, reject) => {
      if (this.jobs.size === 0) this.worker.ref();
      this.jobs.set(job.jobId, { resolve, reject });
      this.worker.postMessage(job);
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.rejectAll(new Error('The decode workers were stopped'));
    await this.worker.terminate();
  }

  private settle(reply: DecodeReply): void {
    this.heapBytes = reply.workerBytes;
    const job = this.jobs.get(reply.jobId);
    if (!job) return;
    this.forget(reply.jobId);
    if ('error' in reply) job.reject(new Error(reply.error));
    else job.resolve({ decoded: unpackBatch(reply.batch), readsOnThreadPool: reply.readsOnThreadPool });
  }

  private rejectAll(error: Error): void {
    for (const [jobId, job] of this.jobs) {
      this.forget(jobId);
      job.reject(error);
    }
  }

  private forget(jobId: number): void {
    this.jobs.delete(jobId);
    if (this.jobs.size === 0) this.worker.unref();
  }
}
