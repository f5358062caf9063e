/**
 * What opening a conversation costs a freshly started server: the time from spawning the
 * process to the first 200 of a search on that conversation, and the memory it then holds
 * against the conversation's size on disk: read the moment that first page has arrived (what
 * a user sees), its peak while opening, and again once the process has settled.
 */
import type { Dataset } from './datasets';
import { sizeOnDisk } from './datasets';
import { getOk } from './http-get';
import { searchPath } from './scenarios';
import { type ProcessMemory, processMemory } from '../process/server-process';
import { type ServerProcess, waitUntilAnswering } from './server-process';

export interface ColdOpenFigures {
  /** Spawn to the first 200 of `/alive`: node, tsx and the app starting, no conversation read. */
  readonly readyMs: number;
  /** Spawn to the first 200 of a search on the conversation: the cold-open figure. */
  readonly firstAnswerMs: number;
  /** Memory once the process answers, before it has read any conversation. */
  readonly idleMemory: ProcessMemory;
  /** Memory the moment the first page has arrived; its peak is the most held while opening. */
  readonly firstPageMemory: ProcessMemory;
  /** Memory after the conversation is loaded and the process has been idle briefly. */
  readonly loadedMemory: ProcessMemory;
  /** Sum of the sizes of the conversation's files. */
  readonly diskBytes: number;
}

// Long enough for the allocations of the load to settle, short against the run.
const SETTLE_MS = 500;

/** Measures a server spawned just now (its clock started at the spawn) opening `dataset`. */
export async function measureColdOpen(server: ServerProcess, dataset: Dataset): Promise<ColdOpenFigures> {
  const readyMs = await waitUntilAnswering(server);
  const idleMemory = processMemory(server.pid);
  await getOk(server.baseUrl + searchPath(dataset.conversationIdHex, { limit: '100' }));
  const firstAnswerMs = performance.now() - server.spawnedAt;
  const firstPageMemory = processMemory(server.pid);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  return { readyMs, firstAnswerMs, idleMemory, firstPageMemory, loadedMemory: processMemory(server.pid), diskBytes: sizeOnDisk(dataset.directory) };
}
