/**
 * Every threshold that decides how a conversation is loaded: how big a batch is, which
 * thread decodes it, when the decode workers start and stop, how long the main thread works
 * before other requests get a turn, and when reads go through the thread pool. Each field
 * says why it has its value; the measurements behind the values are in bench/README.md,
 * "Measurements behind choices in the code", not here.
 */
import { availableParallelism } from 'node:os';

export const LOAD_POLICY = {
  /**
   * Loads of fewer files are decoded on the main thread, in slices: for them that costs less
   * CPU than starting the workers does. A store's `decodeInWorkersFrom` option overrides it
   * (tests use 0 and `Infinity` to choose the thread).
   */
  decodeInWorkersFrom: 2000,
  /**
   * Files per batch: a worker's job (one message each way), and the unit the main thread
   * applies in file order. It bounds the payloads decoded ahead of the index.
   */
  filesPerBatch: 256,
  /**
   * Batches in flight per worker in a large load: with fewer, the queue drained while the
   * main thread was busy with a batch of its own and a worker sat idle.
   */
  batchesInFlightPerWorker: 4,
  /**
   * Smallest load worth cutting between running workers and the main thread: below it, a
   * worker's round trip (a message each way, the batch packed and unpacked) costs about what
   * the split saves.
   */
  sharedLoadFrom: 64,
  /**
   * Below this memory budget, smaller loads do not start or share the workers: a worker's
   * heap counts against the budget (`/health` reports it) and would leave too little for
   * conversations.
   */
  smallestBudgetSharingWorkers: 48 * 1024 * 1024,
  /**
   * The window over which small loads decoded on the main thread are added up: a burst of
   * them (a client going from conversation to conversation, a budget reading dropped ones
   * again) that reaches `decodeInWorkersFrom` within it starts the workers.
   */
  recentLoadsWindowMs: 1000,
  /**
   * Longest synchronous stretch of listing, reading, decoding or applying on the main
   * thread before other requests get a turn. A request needs a few turns of the event loop
   * (its bytes arriving, the check of its conversation, its response), and each may wait
   * behind one slice.
   */
  sliceMs: 2,
  /**
   * A request served less recently than this means none is waiting: the main thread then
   * decodes its share of a large load beside the workers. While requests come, it leaves
   * decoding to the workers, since its help shortens a load but slows every small request.
   */
  mainThreadHelpsAfterQuietMs: 100,
  /** Most decode workers: more would only queue on the disk, and each holds a heap of its own. */
  maxDecodeWorkers: 4,
  /**
   * A pause this long ends a burst of loads (one load's batches arrive every few ms): idle
   * workers then stop and give their heaps back.
   */
  workersIdleMs: 250,
  /** How long workers started ahead of a load wait for its first batch: long enough to list a directory of a million files on a busy machine. */
  warmWorkersWaitMs: 5000,
  /**
   * After a load of this many files the idle workers stop at once rather than after
   * `workersIdleMs`: such a load is no burst of small ones that would share them, and the
   * process then holds the conversation and little besides once its first page is answered.
   */
  stopWorkersAfterLoadsOf: 10_000,
  /**
   * What a directory's size says about its number of entries, to start the workers before a
   * large listing is read: an event file name takes a few dozen to about a hundred bytes
   * depending on the file system. Only a hint; the listing decides where files are decoded.
   */
  directoryBytesPerName: 64,
  /** Names read per trip to the thread pool, and per synchronous step of a large listing: turning that many names into strings stays well within a slice. */
  namesPerRead: 1024,
  /**
   * A batch whose median read takes longer than this came from a device (a disk, a network
   * file system), not the page cache, which answers several times faster. The median,
   * because on a busy machine a few reads are preempted or meet a garbage collection.
   */
  deviceReadMs: 0.05,
  /** Fewer reads than this say too little to judge the storage by (a single changed file, say). */
  minReadsToJudge: 32,
  /** Thread-pool reads in flight once a device answers: libuv has four threads, and a few more reads keep them busy without a long queue in front of other requests. */
  threadPoolReadsInFlight: 8,
} as const;

/**
 * Decode workers for this machine: one core fewer than it has, since the main thread
 * applies every batch and decodes beside them between requests (as many workers as cores
 * left the main thread and the garbage collector's helpers waiting for a core); at least
 * one, at most `maxDecodeWorkers`.
 */
export function decodeWorkerCount(cores = availableParallelism()): number {
  return Math.max(1, Math.min(LOAD_POLICY.maxDecodeWorkers, cores - 1));
}
