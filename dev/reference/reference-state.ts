/**
 * Makes conversations written by our fixture (src/fixture/layout.ts) loadable by the reference
 * agent server. Ours reads only the events; the reference loads a conversation from its state
 * files first and skips it (404) when they do not validate: `meta.json` needs a `workspace` and
 * real `created_at`/`updated_at` times, `base_state.json` an `agent` (with its model settings)
 * and a `workspace`. The agent is never run: serving events only builds it.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Relative to the reference's working directory, a temporary folder of its own. */
const WORKSPACE = { kind: 'LocalWorkspace', working_dir: 'workspace/project' };
/** A model the agent would call through an OpenAI-compatible endpoint; serving events never calls it. */
const AGENT = { kind: 'Agent', llm: { model: 'openai/unused', usage_id: 'agent' } };
/** For a conversation without events, whose meta.json has no times. */
const EPOCH_OF_EMPTY_CONVERSATIONS = '2026-01-01T00:00:00';

type Json = Record<string, unknown>;

function readJson(file: string): Json {
  return JSON.parse(readFileSync(file, 'utf8')) as Json;
}

/** Adds what the reference requires to every conversation's state files under `conversationsPath`, in place. */
export function addReferenceState(conversationsPath: string): void {
  for (const folder of readdirSync(conversationsPath).filter((name) => /^[0-9a-f]{32}$/.test(name))) {
    const metaFile = path.join(conversationsPath, folder, 'meta.json');
    const baseStateFile = path.join(conversationsPath, folder, 'base_state.json');
    const meta = readJson(metaFile);
    const createdAt = meta.created_at ?? EPOCH_OF_EMPTY_CONVERSATIONS;
    writeFileSync(metaFile, JSON.stringify({ ...meta, workspace: WORKSPACE, created_at: createdAt, updated_at: meta.updated_at ?? createdAt }));
    writeFileSync(baseStateFile, JSON.stringify({ ...readJson(baseStateFile), agent: AGENT, workspace: WORKSPACE }));
  }
}
