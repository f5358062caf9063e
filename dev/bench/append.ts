/**
 * How fast a running server picks up events an agent appends while clients keep reading:
 * new event files are written in the reference naming while the first page is under load,
 * and a search for everything after the last old event is repeated until it finds them all.
 */
import { rm, writeFile } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { eventFileName, formatNaiveTimestamp, generateConversation, parseNaiveTimestamp, serializeEvent } from '../../src/fixture';
import type { Dataset } from './datasets';
import { getOk, keepAliveAgent, parseEventPage } from './http-get';
import { type LoadFigures, startLoad } from './load';
import { searchPath } from './scenarios';
import type { ServerProcess } from './server-process';

export interface AppendOptions {
  readonly count: number;
  readonly connections: number;
  /** Give up waiting for the events after this long. */
  readonly timeoutMs: number;
}

export interface AppendFigures {
  readonly appended: number;
  /** From the first file write starting to the last one finishing. */
  readonly writeMs: number;
  /** Appended events a search found when the wait ended (all of them, unless it timed out). */
  readonly visible: number;
  /** From the last write to the first search that showed all of them; undefined on timeout. */
  readonly visibleAfterLastWriteMs: number | undefined;
  /** First page under load for the whole time, appends included. */
  readonly load: LoadFigures;
}

interface PendingFile {
  readonly file: string;
  readonly json: string;
}

const POLL_INTERVAL_MS = 10;
// Let the load reach a steady state before the first write.
const STEADY_BEFORE_WRITING_MS = 1_000;

/**
 * Appends `options.count` events to the conversation served by `server` under load on its
 * first page, measures how long until a search shows them all, then deletes the files again
 * so the dataset stays as generated.
 */
export async function measureAppendUnderLoad(server: ServerProcess, dataset: Dataset, options: AppendOptions): Promise<AppendFigures> {
  const { files, firstTimestamp } = appendedFiles(dataset, options.count);
  const load = startLoad({
    url: server.baseUrl + searchPath(dataset.conversationIdHex, { limit: '100' }),
    connections: options.connections,
    durationSeconds: Math.ceil((STEADY_BEFORE_WRITING_MS + options.timeoutMs) / 1000) + 1,
  });
  try {
    await sleep(STEADY_BEFORE_WRITING_MS);
    const writeStarted = performance.now();
    // One after another, in index order, as an agent server appends them.
    for (const pending of files) await writeFile(pending.file, pending.json);
    const writeEnded = performance.now();
    const visible = await waitUntilVisible(server, dataset, firstTimestamp, options.count, writeEnded + options.timeoutMs);
    load.stop();
    return {
      appended: options.count,
      writeMs: writeEnded - writeStarted,
      visible: visible.count,
      visibleAfterLastWriteMs: visible.count === options.count ? visible.at - writeEnded : undefined,
      load: await load.figures,
    };
  } finally {
    load.stop();
    await Promise.all(files.map((pending) => rm(pending.file, { force: true })));
  }
}

// Events that continue the conversation one second after its last event, indexed after its last file.
function appendedFiles(dataset: Dataset, count: number): { files: PendingFile[]; firstTimestamp: string } {
  const firstTimestamp = formatNaiveTimestamp(parseNaiveTimestamp(dataset.facts.lastTimestamp) + 1_000_000);
  const events = generateConversation({ events: count, seed: `${dataset.spec.seed}-appended`, startTime: firstTimestamp });
  const eventsDirectory = path.join(dataset.directory, 'events');
  const files = events.map((event, offset) => {
    if (event.id === undefined) throw new Error(`Generated event ${offset} has no id.`);
    return { file: path.join(eventsDirectory, eventFileName(dataset.spec.events + offset, event.id)), json: serializeEvent(event) };
  });
  return { files, firstTimestamp };
}

async function waitUntilVisible(
  server: ServerProcess,
  dataset: Dataset,
  since: string,
  expected: number,
  deadline: number,
): Promise<{ count: number; at: number }> {
  const agent = keepAliveAgent();
  try {
    let count = 0;
    while (performance.now() < deadline) {
      count = await countSince(server, dataset.conversationIdHex, since, agent);
      if (count >= expected) return { count, at: performance.now() };
      await sleep(POLL_INTERVAL_MS);
    }
    return { count, at: performance.now() };
  } finally {
    agent.destroy();
  }
}

/** Events at or after `since`, counted by paging through the search as a client would. */
async function countSince(server: ServerProcess, hex: string, since: string, agent: http.Agent): Promise<number> {
  let count = 0;
  let pageId: string | null = null;
  do {
    const query: Record<string, string> = { limit: '100', timestamp__gte: since, ...(pageId === null ? {} : { page_id: pageId }) };
    const page = parseEventPage((await getOk(server.baseUrl + searchPath(hex, query), agent)).body);
    count += page.items.length;
    pageId = page.next_page_id;
  } while (pageId !== null);
  return count;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
