/**
 * The bundled conversation recorded as today's reference writes it, served by the real
 * server over HTTP: what is served under the contract and with stored events unchanged,
 * the counts on /health, the log, search, count and get-by-id agreeing, and the contract
 * kit passing against it; and the conversation the reference recorded itself, served the same way.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Event, EventPage } from '../../src/contract';
import { readFixtureManifest } from '../../src/kit/run/fixture-manifest';
import { RECORDED_SAMPLE, SAMPLE_CONVERSATIONS, type StoredRecord } from '../../src/fixture';
import { createMemoryLogger } from '../../src/log';
import { createApp } from '../../src/server/app';
import { listen } from '../../src/server/listen';
import { openDirectoryStore, type StoredEventMode } from '../../src/store';
import { runKit, notPassed } from '../kit/support/run-kit';

const SAMPLE_DATA = path.resolve(__dirname, '../../sample-data');
const TODAY = SAMPLE_CONVERSATIONS.find((sample) => sample.shape === 'today')!;
const ID = TODAY.conversationId;
const MANIFEST = path.join(SAMPLE_DATA, 'manifests', `${ID}.manifest.json`);

function storedFiles(): { name: string; text: string; record: StoredRecord }[] {
  const directory = path.join(SAMPLE_DATA, 'conversations', ID, 'events');
  return readdirSync(directory)
    .sort()
    .map((name) => {
      const text = readFileSync(path.join(directory, name), 'utf8');
      return { name, text, record: JSON.parse(text) as StoredRecord };
    });
}
const STORED = storedFiles();
const SERVED: readonly Event[] = (JSON.parse(readFileSync(MANIFEST, 'utf8')) as { events: Event[] }).events;
const WITHHELD = STORED.filter(({ record }) => record.kind === 'HookExecutionEvent' || record.kind === 'InterruptEvent');

interface Served {
  url: string;
  logs: string[];
  /** The body parsed; its shape is what each test asserts. */
  get<Body = { stored_events: unknown }>(pathAndQuery: string): Promise<{ status: number; body: Body; text: string }>;
  stop(): Promise<void>;
}

async function serve(mode: StoredEventMode, conversationId = ID): Promise<Served> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'todays-data-'));
  cpSync(path.join(SAMPLE_DATA, 'conversations', conversationId), path.join(root, conversationId), { recursive: true });
  const logger = createMemoryLogger();
  const store = openDirectoryStore(root, { logger, storedEvents: mode });
  // Under the contract every answer is checked against it; unchanged answers go beyond it by design.
  const app = createApp({ store, logger, validateResponses: mode === 'contract', sessionApiKeys: [] });
  const running = await listen(app, '127.0.0.1', 0);
  return {
    url: running.url,
    logs: logger.lines,
    async get(pathAndQuery) {
      const response = await fetch(running.url + pathAndQuery);
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
    },
    async stop() {
      await running.stop();
      await store.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

const api = (suffix: string, conversationId = ID) => `/api/conversations/${conversationId}/events${suffix}`;

async function walk(server: Served, query = '', conversationId = ID): Promise<unknown[]> {
  const items: unknown[] = [];
  let pageId: string | null = null;
  do {
    const page: { status: number; body: EventPage } = await server.get(
      api(`/search?limit=7${query}${pageId ? `&page_id=${pageId}` : ''}`, conversationId),
    );
    expect(page.status).toBe(200);
    items.push(...page.body.items);
    pageId = page.body.next_page_id ?? null;
  } while (pageId);
  return items;
}

const byTimestamp = (events: readonly Event[]) =>
  [...events]
    .map((event, position) => ({ event, position }))
    .sort((a, b) => (a.event.timestamp! < b.event.timestamp! ? -1 : a.event.timestamp! > b.event.timestamp! ? 1 : a.position - b.position))
    .map(({ event }) => event);

describe("today's recorded conversation, served under the contract", () => {
  let server: Served;
  beforeAll(async () => (server = await serve('contract')));
  afterAll(() => server.stop());

  it('serves every event of a kind the contract has, without what it does not list, and nothing else', async () => {
    const items = await walk(server);
    expect(items).toEqual(byTimestamp(SERVED));
    expect(JSON.stringify(items)).not.toContain('parent_id');
    expect(STORED.length - SERVED.length).toBe(WITHHELD.length);
  });

  it('counts on /health what was served as stored, with properties removed, and not served, by name and kind', async () => {
    const count = (test: (record: StoredRecord) => boolean) => STORED.filter(({ record }) => test(record)).length;
    const { body } = await server.get('/health');
    expect(body).toMatchObject({ events_loaded: SERVED.length, events_skipped_invalid: 0 });
    expect(body.stored_events).toEqual({
      unlisted_properties: 'removed',
      served_as_stored: 1,
      served_with_unlisted_properties: SERVED.length - 1,
      unlisted_property_counts: {
        parent_id: SERVED.length - 1,
        extended_content: count((record) => record.kind === 'ObservationEvent'),
        classification: count((record) => record.kind === 'AgentErrorEvent' || record.kind === 'ConversationErrorEvent'),
      },
      not_served_by_kind: { HookExecutionEvent: WITHHELD.length - 1, InterruptEvent: 1 },
      not_served_by_value: {},
      broken_files: 0,
    });
  });

  it('logs once per reason, with the count, and warns of nothing', async () => {
    const lines = server.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line['conversation'] === ID && line['message'] !== 'conversation loaded');
    expect(lines.map(({ message, property, kind }) => [message, property ?? kind]).sort()).toEqual(
      [
        ['events not served: their kind is not in the contract', 'HookExecutionEvent'],
        ['events not served: their kind is not in the contract', 'InterruptEvent'],
        ['events served with properties the contract does not list removed', 'classification'],
        ['events served with properties the contract does not list removed', 'extended_content'],
        ['events served with properties the contract does not list removed', 'parent_id'],
      ].sort(),
    );
    expect(lines.find((line) => line['property'] === 'parent_id')).toMatchObject({ level: 'info', events: SERVED.length - 1 });
  });

  it.each(['', '&kind=ObservationEvent', '&source=user', '&kind=ConversationStateUpdateEvent&timestamp__gte=2026-11-20T14:03:00'])(
    'counts what the walk returns (filters %p)',
    async (query) => {
      const items = await walk(server, query);
      const counted = await server.get(api(`/count?${query.slice(1)}`));
      expect(counted).toMatchObject({ status: 200, body: items.length });
    },
  );

  it('gets a served event by id as the search serves it, and answers 404 for an event it does not serve', async () => {
    const served = SERVED[40]!;
    expect(await server.get(api(`/${served.id}`))).toMatchObject({ status: 200, body: served });
    for (const { record } of WITHHELD) expect((await server.get(api(`/${record.id}`))).status).toBe(404);
  });

  it("treats a withheld event's id as a page_id like any unknown id", async () => {
    const unknown = await server.get(api('/search?limit=5&page_id=00000000-0000-4000-8000-000000000000'));
    const withheld = await server.get(api(`/search?limit=5&page_id=${WITHHELD[0]!.record.id}`));
    expect(withheld).toEqual(unknown);
  });
});

describe("today's recorded conversation served with stored events unchanged", () => {
  let server: Served;
  beforeAll(async () => (server = await serve('as-stored')));
  afterAll(() => server.stop());

  it('serves the stored bytes, unlisted properties included, and still withholds kinds the contract does not have', async () => {
    const items = await walk(server);
    const storedKnown = STORED.filter((file) => !WITHHELD.includes(file));
    expect(items).toHaveLength(storedKnown.length);
    expect((items as StoredRecord[]).filter((item) => 'parent_id' in item)).toHaveLength(storedKnown.length - 1);
    const file = storedKnown[60]!;
    const got = await server.get(api(`/${file.record.id}`));
    expect(got.text).toBe(file.text);
    expect((await server.get(api(`/${WITHHELD[0]!.record.id}`))).status).toBe(404);
    expect((await server.get(api('/count'))).body).toBe(items.length);
  });

  it('says on /health that unlisted properties are kept', async () => {
    const { body } = await server.get('/health');
    expect(body.stored_events).toMatchObject({
      unlisted_properties: 'kept',
      served_with_unlisted_properties: SERVED.length - 1,
      unlisted_property_counts: { parent_id: SERVED.length - 1 },
    });
  });
});

describe("the contract kit against our server on today's recorded conversation", () => {
  let server: Served;
  beforeAll(async () => (server = await serve('contract')));
  afterAll(() => server.stop());

  it('passes every check at both levels, with the manifest of what the contract describes', async () => {
    const read = readFixtureManifest(MANIFEST);
    if (!read.ok) throw new Error(read.message);
    const result = await runKit({ baseUrl: server.url, conversationId: ID, manifest: read.manifest });
    expect(notPassed(result).filter((check) => check.status !== 'skipped')).toEqual([]);
  });
});

describe('the conversation the reference recorded itself (sample-data, npm run record-reference), served under the contract', () => {
  const RECORDED = RECORDED_SAMPLE.conversationId;
  const directory = path.join(SAMPLE_DATA, 'conversations', RECORDED, 'events');
  // Beside its event files the reference keeps a lock and a length marker there.
  const stored = readdirSync(directory)
    .filter((name) => name.startsWith('event-'))
    .sort()
    .map((name) => JSON.parse(readFileSync(path.join(directory, name), 'utf8')) as StoredRecord);
  let server: Served;
  beforeAll(async () => (server = await serve('contract', RECORDED)));
  afterAll(() => server.stop());

  it('serves every event it wrote, each without the properties the contract does not list, and counts them on /health', async () => {
    const items = (await walk(server, '', RECORDED)) as StoredRecord[];
    expect(items.map((item) => item.id).sort()).toEqual(stored.map((record) => record.id).sort());
    expect(items.filter((item) => 'parent_id' in item || 'classification' in item)).toEqual([]);
    const having = (property: string) => stored.filter((record) => property in record).length;
    const { body } = await server.get('/health');
    expect(body.stored_events).toEqual({
      unlisted_properties: 'removed',
      served_as_stored: stored.length - having('parent_id'),
      served_with_unlisted_properties: having('parent_id'),
      unlisted_property_counts: {
        parent_id: having('parent_id'),
        extended_content: stored.filter((record) => record.kind === 'ObservationEvent' && 'extended_content' in record).length,
        classification: having('classification'),
      },
      not_served_by_kind: {},
      not_served_by_value: {},
      broken_files: 0,
    });
  });

  it('passes every check of the contract kit at both levels', async () => {
    const result = await runKit({ baseUrl: server.url, conversationId: RECORDED });
    expect(notPassed(result).filter((check) => check.status !== 'skipped')).toEqual([]);
  });
});
