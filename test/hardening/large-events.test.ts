/**
 * Events too large to be handed out whole (over the store's LARGE_EVENT_BYTES), in every
 * export, over HTTP: the JSON lines export has each whole, byte for byte as stored when it
 * holds nothing to mask, and with a known secret masked wherever in its bytes the secret sits;
 * the Markdown document shows each by its kind, id and size; the traces hold no secret; the
 * trajectory zip has each whole, masked. A large event holding the policy's secret fields (a
 * key, an MCP server's env and headers, a credential whose strategy comes after its value, a
 * name written in escapes) and Fernet tokens cut where its pieces are is masked in the JSON lines
 * export and the zip as the search page masks it.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { serializeEvent } from '../../src/fixture';
import { writeConversationState } from '../support/conversation-state';
import { conversationId, eventId, message, observation, stateUpdate } from '../support/events';
import { type LiveServer, liveServerStoreKind, startLiveServer } from '../support/live-server';
import { unzipWithPython } from '../support/unzip';

const ID = conversationId(1);
const HEX = ID.replaceAll('-', '');
const MASK = '**********';
const MB = 1024 * 1024;
/** Held in clear by the saved state, so a known secret of the conversation. */
const SECRET = 'registry-plain-token-0001';

const STAMP = (n: number) => ({ id: eventId(n), timestamp: `2026-11-01T10:00:${String(n).padStart(2, '0')}.000000` });

/** A large plain event: nothing in it to mask. */
const PLAIN = observation(STAMP(2), 'drwxr-xr-x  2 agent agent 4096 Nov 26 10:00 node_modules/\n'.repeat(Math.ceil((5 * MB) / 60)));

/** A large event whose stored bytes hold the secret once, starting just before `offset`, so that it is cut wherever a reading cuts there. */
function holdingSecretAt(n: number, offset: number): ReturnType<typeof observation> {
  const at = serializeEvent(observation(STAMP(n), SECRET)).indexOf(SECRET);
  return observation(STAMP(n), `${'a'.repeat(offset - 3 - at)}${SECRET}${'b'.repeat(64 * 1024)}`);
}
const HOLDING = [1, 2, 3, 4, 5].map((megabytes, index) => holdingSecretAt(3 + index, megabytes * MB));

/** A second conversation, whose large event holds the policy's secret fields. */
const FIELDS_ID = conversationId(2);
const FIELDS_HEX = FIELDS_ID.replaceAll('-', '');
/** Clear values only the large event holds, each in a field the policy masks. */
const FIELD_SECRETS = {
  apiKey: 'sk-large-event-key-0001',
  env: 'ghp-large-event-env-0002',
  header: 'Bearer large-event-header-0003',
  credential: 'large-event-credential-0004',
  escaped: 'sk-escaped-name-key-0005',
};
/** Fernet tokens in the event's text (each followed by a space, where its run ends), and a provider's ciphertext the JSON lines keep. */
const FERNET = ['gAAAAABlarge-event-fernet-0006', 'gAAAAABlarge-event-fernet-0007'];
const PROVIDER_CIPHERTEXT = 'gAAAAABprovider-reasoning-0008';
const TEXT_MARK = '<the text>';

/** The large event with `text` in its notes. */
function fieldsEvent(text: string): ReturnType<typeof stateUpdate> {
  return stateUpdate(STAMP(1), 'agent', {
    llm: { model: 'openai/gpt-4o', api_key: FIELD_SECRETS.apiKey, reasoning: { encrypted_content: PROVIDER_CIPHERTEXT } },
    mcp_config: {
      mcpServers: {
        github: {
          command: 'github-mcp',
          env: { GITHUB_TOKEN: FIELD_SECRETS.env, EMPTY: '' },
          headers: { Accept: 'application/json', Authorization: FIELD_SECRETS.header },
        },
      },
    },
    notes: text,
    escaped: { api_key: FIELD_SECRETS.escaped },
    auth: { value: FIELD_SECRETS.credential, scope: 'repo', strategy: 'bearer' },
  });
}

/** The event's text, 5 MB, with a Fernet token cut at 1 and 4 MiB of its stored bytes and the known secret at 2 MiB, wherever a reading cuts pieces there. */
const NOTES = (() => {
  const start = serializeEvent(fieldsEvent(TEXT_MARK)).indexOf(TEXT_MARK);
  let text = '';
  for (const [offset, inside] of [
    [1 * MB, `${FERNET[0]} `],
    [2 * MB, SECRET],
    [4 * MB, `${FERNET[1]} `],
  ] as const)
    text += `${'n'.repeat(offset - 3 - start - text.length)}${inside}`;
  return `${text}${'e'.repeat(MB)}`;
})();
const FIELDS_EVENT = fieldsEvent(NOTES);

let server: LiveServer;

beforeAll(async () => {
  server = await startLiveServer(
    [
      {
        id: ID,
        events: [
          message({ ...STAMP(1), source: 'user' }, { text: ['Show the tree.'] }),
          PLAIN,
          ...HOLDING,
          message({ ...STAMP(9), source: 'agent' }, { text: ['Done.'] }),
        ],
      },
      { id: FIELDS_ID, events: [FIELDS_EVENT] },
    ],
    {
      rewrite: (root) => {
        // One secret field's name written in escapes, as a hostile writer may.
        const events = path.join(root, FIELDS_HEX, 'events');
        const file = path.join(events, readdirSync(events)[0]!);
        const escaped = readFileSync(file, 'utf8').replace('"escaped":{"api_key"', '"escaped":{"\\u0061pi_key"');
        expect(escaped).toContain('\\u0061pi_key');
        writeFileSync(file, escaped);
        // Each conversation's saved state holds SECRET in clear, so it is a known secret of both.
        for (const [id, title] of [
          [ID, 'Large'],
          [FIELDS_ID, 'Large fields'],
        ] as const) {
          writeConversationState(root, id, { createdAt: '2026-11-01T10:00:00.000001', updatedAt: '2026-11-01T10:00:09.000001', title });
          const stateFile = path.join(root, id.replaceAll('-', ''), 'base_state.json');
          const state = JSON.parse(readFileSync(stateFile, 'utf8'));
          state.secret_registry.secret_sources.PLAIN = { kind: 'StaticSecret', value: SECRET, description: 'Plain' };
          writeFileSync(stateFile, JSON.stringify(state, null, 2));
        }
      },
    },
  );
});

afterAll(() => server.stop());

async function exported(format: string, id = ID): Promise<string> {
  const response = await fetch(`${server.url}/api/stored-conversations/${id}/export?format=${format}`);
  expect(response.status).toBe(200);
  return response.text();
}

test('the JSON lines export has every large event whole: as stored when there is nothing to mask, the known secret masked wherever it sits', async () => {
  const lines = (await exported('jsonl')).split('\n');
  expect(lines.pop()).toBe('');
  expect(lines).toHaveLength(8);
  const stored = readdirSync(path.join(server.root, HEX, 'events'))
    .sort()
    .map((name) => readFileSync(path.join(server.root, HEX, 'events', name), 'utf8'));
  expect(lines[1]).toBe(stored[1]);
  for (const [index, event] of HOLDING.entries()) {
    const line = lines[2 + index]!;
    expect(line.includes(SECRET)).toBe(false);
    const text = (JSON.parse(line).observation.content[0].text as string).split(MASK);
    expect(text).toEqual((event.observation.content as { text: string }[])[0]!.text.split(SECRET));
  }
});

test('the Markdown document shows each large event by its kind, id and size', async () => {
  const text = await exported('markdown');
  expect(text).toContain('Show the tree.');
  expect(text.match(/ObservationEvent \(\d\.\d MB, not shown\)/g)).toHaveLength(6);
  expect(text).toContain(`\`GET .../events/${HOLDING[4]!.id}\``);
  expect(text).toContain('Done.');
  expect(text.includes(SECRET)).toBe(false);
});

test.each(['otlp', 'atif'])('the %s trace reads the large events and holds no secret', async (format) => {
  const text = await exported(format);
  expect(() => JSON.parse(text)).not.toThrow();
  expect(text.includes(SECRET)).toBe(false);
});

// A PostgreSQL store's zip holds what the ingester copied (the documents and the events), not the directory's other files.
const directoryZip = liveServerStoreKind() === 'sqlite' ? test : test.skip;

directoryZip(
  'the trajectory zip has other large files of the directory too: text with the known secret masked where a piece is cut, other bytes as they are',
  async () => {
    const text = `${'c'.repeat(2 * MB - 5)}${SECRET}${'d'.repeat(MB)}`;
    const binary = Buffer.from(Array.from({ length: 3 * MB }, (_, index) => (index * 7919) % 251));
    writeFileSync(path.join(server.root, HEX, 'agent-log.txt'), text);
    writeFileSync(path.join(server.root, HEX, 'screenshot.bin'), binary);
    const response = await fetch(`${server.url}/api/file/download-trajectory/${ID}`);
    expect(response.status).toBe(200);
    const entries = await unzipWithPython(Buffer.from(await response.arrayBuffer()));
    expect(String(entries.get(`${HEX}/agent-log.txt`))).toBe(text.replace(SECRET, MASK));
    expect(entries.get(`${HEX}/screenshot.bin`)!.equals(binary)).toBe(true);
  },
);

test('the trajectory zip has every event file, the large ones included, with the known secret masked', async () => {
  const response = await fetch(`${server.url}/api/file/download-trajectory/${ID}`);
  expect(response.status).toBe(200);
  const entries = await unzipWithPython(Buffer.from(await response.arrayBuffer()));
  const events = [...entries.entries()].filter(([name]) => name.startsWith(`${HEX}/events/event-`)).map(([, bytes]) => JSON.parse(String(bytes)));
  expect(events.map((event) => event.id)).toEqual([STAMP(1).id, PLAIN.id, ...HOLDING.map((event) => event.id), STAMP(9).id]);
  expect(events[1].observation.content[0].text).toBe((PLAIN.observation.content as { text: string }[])[0]!.text);
  for (const [index, event] of HOLDING.entries())
    expect(events[2 + index].observation.content[0].text.split(MASK)).toEqual(
      (event.observation.content as { text: string }[])[0]!.text.split(SECRET),
    );
});

describe('a large event holding secret fields', () => {
  const CLEAR = [...Object.values(FIELD_SECRETS), ...FERNET, SECRET];

  /** What the search page serves of the event: small pages are masked whole, parsed. */
  async function searched(): Promise<Record<string, unknown>> {
    const page = await server.statusAndBody(`/api/conversations/${FIELDS_ID}/events/search`);
    expect(page.status).toBe(200);
    const items = (page.body as { items: Record<string, unknown>[] }).items;
    expect(items).toHaveLength(1);
    return items[0]!;
  }

  test('the JSON lines export has it masked as the search page serves it', async () => {
    const lines = (await exported('jsonl', FIELDS_ID)).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(1);
    for (const clear of CLEAR) expect(lines[0]!.includes(clear)).toBe(false);
    const line = JSON.parse(lines[0]!);
    const value = line.value;
    expect(value.llm).toEqual({ model: 'openai/gpt-4o', api_key: MASK, reasoning: { encrypted_content: PROVIDER_CIPHERTEXT } });
    expect(value.mcp_config.mcpServers.github.env).toEqual({ GITHUB_TOKEN: MASK, EMPTY: '' });
    expect(value.mcp_config.mcpServers.github.headers).toEqual({ Accept: MASK, Authorization: MASK });
    expect(value.escaped).toEqual({ api_key: MASK });
    expect(value.auth).toEqual({ value: MASK, scope: 'repo', strategy: 'bearer' });
    expect(value.notes.split(MASK).map((part: string) => part.length)).toEqual(
      NOTES.split(new RegExp(`${FERNET.join('|')}|${SECRET}`)).map((part) => part.length),
    );
    expect(line).toEqual(await searched());
  });

  test('the trajectory zip has it masked as the search page serves it, the provider ciphertext masked too, as the reference masks it', async () => {
    const response = await fetch(`${server.url}/api/file/download-trajectory/${FIELDS_ID}`);
    expect(response.status).toBe(200);
    const entries = await unzipWithPython(Buffer.from(await response.arrayBuffer()));
    const [file] = [...entries.entries()].filter(([name]) => name.startsWith(`${FIELDS_HEX}/events/event-`)).map(([, bytes]) => String(bytes));
    for (const clear of [...CLEAR, PROVIDER_CIPHERTEXT]) expect(file!.includes(clear)).toBe(false);
    const expected = await searched();
    (expected.value as { llm: { reasoning: { encrypted_content: string } } }).llm.reasoning.encrypted_content = MASK;
    expect(JSON.parse(file!)).toEqual(expected);
  });
});
