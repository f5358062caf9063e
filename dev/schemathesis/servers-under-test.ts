/**
 * The servers Schemathesis is run against, each a real process on loopback over its own copy
 * of sample-data/conversations (the reference writes into the conversations it serves).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnServer } from '../process/server-process';
import { addReferenceState } from '../reference/reference-state';
import { startReferenceServer } from '../reference/reference-server';
import { SAMPLE_CONVERSATIONS } from './dictionaries';

export interface ServerUnderTest {
  readonly name: string;
  readonly url: string;
  /** What the server printed, for a failing run to show. */
  log(): string;
  /** Stops the server and removes its copy of the data. */
  stop(): Promise<void>;
}

function copyOfSampleData(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'schemathesis-data-'));
  const conversations = path.join(root, 'conversations');
  cpSync(SAMPLE_CONVERSATIONS, conversations, { recursive: true });
  return conversations;
}

/** Our server from this checkout's TypeScript (src/cli/start.ts), once it answers /alive. */
export async function startOurServer(): Promise<ServerUnderTest> {
  const conversations = copyOfSampleData();
  const logFile = path.join(path.dirname(conversations), 'server.log');
  const server = await spawnServer({ conversationsPath: conversations, logFile, label: 'our server' });
  const log = () => readFileSync(logFile, 'utf8');
  const stop = async () => {
    await server.stop(5000);
    rmSync(path.dirname(conversations), { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  let exited = false;
  void server.exited.then(() => {
    exited = true;
  });
  while (!(await answers(`${server.url}/alive`))) {
    if (exited || Date.now() > deadline) {
      const tail = log().trim().split('\n').slice(-15).join('\n');
      await stop();
      throw new Error(`Our server did not ${exited ? 'stay up' : 'answer /alive within 60 s'}:\n${tail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { name: 'our server', url: server.url, log, stop };
}

/** The pinned reference agent server, over the sample data with the state files it needs. */
export async function startReferenceUnderTest(options: { sessionApiKey?: string } = {}): Promise<ServerUnderTest> {
  const conversations = copyOfSampleData();
  addReferenceState(conversations);
  const sessionApiKeys = options.sessionApiKey === undefined ? [] : [options.sessionApiKey];
  const reference = await startReferenceServer({ conversationsPath: conversations, sessionApiKeys });
  return {
    name: `the reference agent server ${reference.version}`,
    url: reference.url,
    log: reference.log,
    async stop() {
      await reference.stop();
      rmSync(path.dirname(conversations), { recursive: true, force: true });
    },
  };
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}
