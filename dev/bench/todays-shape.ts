/**
 * What stored data as today's reference writes it costs to open: the same events, once in
 * the seed's shape and once as today's reference records them (`parent_id` on every event,
 * the extra fields, hook and interrupt events; src/fixture/todays-shape.ts), each opened
 * by a freshly started server. Removing what the contract does not list happens while a
 * conversation is read, so the difference shows here and nowhere per request.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_LARGE_PAYLOAD_BYTES, generateRecordedConversation, writeConversation } from '../../src/fixture';
import { type ColdOpenFigures, measureColdOpen } from './cold-open';
import { type Dataset, type DatasetFacts, type DatasetSpec, factsOf } from './datasets';
import { bringIntoPageCache } from './read-floor';
import { type ServerProcess, spawnOurServer } from './server-process';
import { mebibytes } from './targets';

/** Bump when the data written here changes shape, so old data is regenerated. */
const DATA_VERSION = 1;

export interface TodaysShapeFigures {
  /** Events the contract describes (what both conversations serve). */
  readonly servedEvents: number;
  /** Event files of the conversation in today's shape (the served ones plus hook and interrupt events). */
  readonly storedEvents: number;
  readonly seedShape: ColdOpenFigures;
  readonly todaysShape: ColdOpenFigures;
}

export interface TodaysShapeOptions {
  readonly repoRoot: string;
  /** Where the two conversations, their marker and the servers' logs go (git-ignored). */
  readonly dataDirectory: string;
  readonly nodeFlags: readonly string[];
}

/** Opens `spec.events` events of today's shape and the same events in the seed's shape, each in a new server. */
export async function measureTodaysShapeOpen(
  spec: DatasetSpec,
  options: TodaysShapeOptions,
  progress: (line: string) => void,
): Promise<TodaysShapeFigures> {
  const root = path.join(options.dataDirectory, 'shapes', 'conversations');
  const { seedShape, todaysShape } = ensureShapes(spec, root, path.join(options.dataDirectory, 'shapes'), progress);
  const open = async (dataset: Dataset, name: string): Promise<ColdOpenFigures> => {
    bringIntoPageCache(dataset.directory);
    const server = await spawnOurServer(name, {
      repoRoot: options.repoRoot,
      conversationsRoot: root,
      validateResponses: false,
      nodeFlags: options.nodeFlags,
      logFile: path.join(options.dataDirectory, 'logs', `${name}.log`),
    });
    return stopAfter(server, () => measureColdOpen(server, dataset));
  };
  progress(`${spec.label}: cold open, the seed's shape`);
  const seed = await open(seedShape, `ours-seed-shape-${spec.label}`);
  progress(`${spec.label}: cold open, today's shape`);
  const today = await open(todaysShape, `ours-todays-shape-${spec.label}`);
  return { servedEvents: seedShape.events, storedEvents: todaysShape.events, seedShape: seed, todaysShape: today };
}

/** The report's lines. */
export function todaysShapeSection(figures: TodaysShapeFigures): string {
  const opened = (open: ColdOpenFigures) => open.firstAnswerMs - open.readyMs;
  const seed = opened(figures.seedShape);
  const today = opened(figures.todaysShape);
  return `## Stored data as today's reference writes it

The same ${figures.servedEvents} events opened by a new server: in the seed's shape, and as today's reference records them (${figures.storedEvents} files: parent_id on every event, extended_content, classification, hook and interrupt events not served).

| shape | on disk MiB | spawn to first page ms | of which the open ms | resident after MiB |
|---|---|---|---|---|
| seed | ${mebibytes(figures.seedShape.diskBytes)} | ${figures.seedShape.firstAnswerMs.toFixed(0)} | ${seed.toFixed(0)} | ${mebibytes(figures.seedShape.loadedMemory.residentBytes)} |
| today | ${mebibytes(figures.todaysShape.diskBytes)} | ${figures.todaysShape.firstAnswerMs.toFixed(0)} | ${today.toFixed(0)} | ${mebibytes(figures.todaysShape.loadedMemory.residentBytes)} |

Removing what the contract does not list costs ${(today - seed).toFixed(0)} ms on this open (${((today / seed - 1) * 100).toFixed(0)}%); requests afterwards serve the kept bytes as they are.
`;
}

interface ShapedDataset extends Dataset {
  /** Event files. */
  readonly events: number;
}

interface Marker {
  readonly version: number;
  readonly events: number;
  readonly seed: string;
  readonly servedEvents: number;
  readonly facts: DatasetFacts;
}

function ensureShapes(
  spec: DatasetSpec,
  root: string,
  markers: string,
  progress: (line: string) => void,
): { seedShape: ShapedDataset; todaysShape: ShapedDataset } {
  const seedHex = `5eed5a9e${String(spec.events).padStart(24, '0')}`;
  const todayHex = `70da7a9e${String(spec.events).padStart(24, '0')}`;
  const markerFile = path.join(markers, `${spec.label}.json`);
  let marker = matchingMarker(markerFile, spec);
  if (!marker || !existsSync(path.join(root, seedHex)) || !existsSync(path.join(root, todayHex))) {
    progress(`generating ${spec.events} events in the seed's shape and in today's...`);
    const conversation = generateRecordedConversation({
      events: spec.events,
      seed: spec.seed,
      largePayloadBytes: DEFAULT_LARGE_PAYLOAD_BYTES,
      shape: 'today',
    });
    writeConversation(root, seedHex, conversation.served);
    writeConversation(root, todayHex, conversation.served, conversation.stored);
    marker = {
      version: DATA_VERSION,
      events: spec.events,
      seed: spec.seed,
      servedEvents: conversation.served.length,
      facts: factsOf(conversation.served),
    };
    mkdirSync(markers, { recursive: true });
    // Written last: an interrupted generation leaves no marker and is done again.
    writeFileSync(markerFile, `${JSON.stringify(marker)}\n`);
  }
  const { facts } = marker;
  const dataset = (hex: string, events: number): ShapedDataset => ({ spec, conversationIdHex: hex, directory: path.join(root, hex), facts, events });
  return { seedShape: dataset(seedHex, marker.servedEvents), todaysShape: dataset(todayHex, spec.events) };
}

function matchingMarker(file: string, spec: DatasetSpec): Marker | undefined {
  try {
    const marker = JSON.parse(readFileSync(file, 'utf8')) as Marker;
    return marker.version === DATA_VERSION && marker.events === spec.events && marker.seed === spec.seed ? marker : undefined;
  } catch {
    return undefined;
  }
}

async function stopAfter<T>(server: ServerProcess, use: () => Promise<T>): Promise<T> {
  try {
    return await use();
  } finally {
    await server.stop();
  }
}
