import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadOpenApiDocument, type OpenApiDocument } from '../../src/contract';
import { diffContracts, type Party } from '../../src/kit/diff/contract-diff';

/* A table of spec edits, each with the classification it must get (whom it breaks). */
// biome-ignore lint/suspicious/noExplicitAny: each edit reaches into a different corner of the document
type Doc = OpenApiDocument & Record<string, any>;
const SEARCH = '/api/conversations/{conversation_id}/events/search';
const searchParameter = (document: Doc, name: string) =>
  (document.paths[SEARCH]!['get'] as { parameters: Record<string, unknown>[] }).parameters.find((parameter) => parameter['name'] === name)!;
// biome-ignore lint/suspicious/noExplicitAny: as above
const schemas = (document: Doc) => document.components.schemas as Record<string, any>;

const EDITS: [string, (document: Doc) => void, { where: string; what: string; breaks: Party[] }][] = [
  [
    'search operation removed',
    (d) => delete d.paths[SEARCH],
    { where: `GET ${SEARCH}`, what: 'operation searchConversationEvents removed', breaks: ['clients'] },
  ],
  [
    'search operation moved to another path',
    (d) => {
      d.paths['/api/conversations/{conversation_id}/events/find'] = d.paths[SEARCH]!;
      delete d.paths[SEARCH];
    },
    {
      where: `GET ${SEARCH}`,
      what: 'operation searchConversationEvents moved to GET /api/conversations/{conversation_id}/events/find',
      breaks: ['clients', 'servers'],
    },
  ],
  [
    'operationId renamed',
    (d) => ((d.paths[SEARCH]!['get'] as Record<string, unknown>)['operationId'] = 'findEvents'),
    {
      where: `GET ${SEARCH}`,
      what: 'operationId renamed from searchConversationEvents to findEvents (generated client methods change name)',
      breaks: ['clients'],
    },
  ],
  [
    'operation added',
    (d) => (d.paths['/api/health'] = { get: { operationId: 'health', responses: { '200': { description: 'ok' } } } }),
    { where: 'GET /api/health', what: 'operation health added: servers must implement it', breaks: ['servers'] },
  ],
  [
    'parameter removed',
    (d) =>
      ((d.paths[SEARCH]!['get'] as { parameters: { name: string }[] }).parameters = (
        d.paths[SEARCH]!['get'] as { parameters: { name: string }[] }
      ).parameters.filter((p) => p.name !== 'body')),
    { where: `GET ${SEARCH} query parameter body`, what: 'parameter removed', breaks: ['clients'] },
  ],
  [
    'parameter renamed',
    (d) => (searchParameter(d, 'body')['name'] = 'text'),
    {
      where: `GET ${SEARCH} query parameter body`,
      what: 'parameter renamed to text: clients sending the old name are not heard',
      breaks: ['clients', 'servers'],
    },
  ],
  [
    'parameter made required',
    (d) => (searchParameter(d, 'kind')['required'] = true),
    { where: `GET ${SEARCH} query parameter kind`, what: 'parameter made required', breaks: ['clients'] },
  ],
  [
    'optional parameter added',
    (d) =>
      (d.paths[SEARCH]!['get'] as { parameters: unknown[] }).parameters.push({
        name: 'tool',
        in: 'query',
        required: false,
        schema: { type: 'string' },
      }),
    { where: `GET ${SEARCH} query parameter tool`, what: 'optional parameter added: servers must honour it', breaks: ['servers'] },
  ],
  [
    'limit maximum lowered',
    (d) => ((searchParameter(d, 'limit')['schema'] as Record<string, unknown>)['maximum'] = 50),
    { where: `GET ${SEARCH} query parameter limit`, what: 'bound narrowed: maximum changed (100 -> 50)', breaks: ['clients'] },
  ],
  [
    'limit default lowered',
    (d) => ((searchParameter(d, 'limit')['schema'] as Record<string, unknown>)['default'] = 50),
    {
      where: `GET ${SEARCH} query parameter limit`,
      what: 'default changed (100 -> 50): clients that leave it out get a different answer',
      breaks: ['clients'],
    },
  ],
  [
    'a default given to a parameter that had none',
    (d) => ((searchParameter(d, 'kind')['schema'] as Record<string, unknown>)['default'] = 'MessageEvent'),
    {
      where: `GET ${SEARCH} query parameter kind`,
      what: 'default added ("MessageEvent"): servers must apply it when the value is left out',
      breaks: ['servers'],
    },
  ],
  [
    'a default of a response property changed',
    (d) => (schemas(d)['AgentErrorEvent'].properties.source.default = 'user'),
    { where: 'response 200', what: 'default changed ("agent" -> "user"): clients read an absent value differently', breaks: ['clients'] },
  ],
  [
    'limit maximum raised',
    (d) => ((searchParameter(d, 'limit')['schema'] as Record<string, unknown>)['maximum'] = 500),
    { where: `GET ${SEARCH} query parameter limit`, what: 'bound widened: maximum changed (100 -> 500)', breaks: ['servers'] },
  ],
  [
    'kind no longer nullable',
    (d) => ((searchParameter(d, 'kind')['schema'] as Record<string, unknown>)['type'] = 'string'),
    { where: `GET ${SEARCH} query parameter kind`, what: 'type narrowed: null no longer allowed', breaks: ['clients'] },
  ],
  [
    'limit may be a number, not only an integer',
    (d) => ((searchParameter(d, 'limit')['schema'] as Record<string, unknown>)['type'] = 'number'),
    { where: `GET ${SEARCH} query parameter limit`, what: 'type widened: number now allowed', breaks: ['servers'] },
  ],
  [
    'a sort order removed',
    (d) => (schemas(d)['EventSortOrder'].enum = ['TIMESTAMP']),
    { where: `GET ${SEARCH} query parameter sort_order`, what: 'enum narrowed: "TIMESTAMP_DESC" removed', breaks: ['clients'] },
  ],
  [
    'an event source added',
    (d) => schemas(d)['EventSource'].enum.push('hook'),
    { where: 'source', what: 'enum widened: "hook" added', breaks: ['clients'] },
  ],
  [
    'response property removed',
    (d) => delete schemas(d)['EventPage'].properties.next_page_id,
    { where: `GET ${SEARCH} response 200.next_page_id`, what: 'property removed', breaks: ['clients', 'servers'] },
  ],
  [
    'response property renamed',
    (d) => {
      const page = schemas(d)['EventPage'];
      page.properties.next_page = page.properties.next_page_id;
      delete page.properties.next_page_id;
      page.required = page.required.map((name: string) => (name === 'next_page_id' ? 'next_page' : name));
    },
    { where: `GET ${SEARCH} response 200.next_page_id`, what: 'property renamed to next_page', breaks: ['clients', 'servers'] },
  ],
  [
    'response property made optional',
    (d) => (schemas(d)['EventPage'].required = []),
    { where: `GET ${SEARCH} response 200.items`, what: 'property made optional', breaks: ['clients'] },
  ],
  [
    'response property made required',
    (d) => (schemas(d)['EventPage'].required = ['items', 'next_page_id']),
    { where: `GET ${SEARCH} response 200.next_page_id`, what: 'property made required', breaks: ['servers'] },
  ],
  [
    'optional response property added',
    (d) => (schemas(d)['EventPage'].properties.total = { type: 'integer' }),
    { where: `GET ${SEARCH} response 200.total`, what: 'optional property added', breaks: [] },
  ],
  [
    'event kind removed from the union',
    (d) => {
      const event = schemas(d)['Event'];
      event.oneOf = event.oneOf.filter((member: { $ref: string }) => !member.$ref.endsWith('/PauseEvent'));
      delete event.discriminator.mapping.PauseEvent;
    },
    { where: `GET ${SEARCH} response 200.items[]`, what: 'union member PauseEvent removed', breaks: ['servers'] },
  ],
  [
    'a property of one event kind made required',
    (d) => schemas(d)['PauseEvent'].required.push('timestamp'),
    { where: `GET ${SEARCH} response 200.items[] <PauseEvent>.timestamp`, what: 'property made required', breaks: ['servers'] },
  ],
  [
    'response status removed',
    (d) => delete (d.paths[SEARCH]!['get'] as { responses: Record<string, unknown> }).responses['422'],
    { where: `GET ${SEARCH} response 422`, what: 'response status removed: servers that send it now break the contract', breaks: ['servers'] },
  ],
  [
    'a description changed',
    (d) => ((d.paths[SEARCH]!['get'] as Record<string, unknown>)['description'] = 'Other words.'),
    { where: '', what: '', breaks: [] },
  ],
];

it.each(EDITS)('%s', (_name, edit, want) => {
  const before = loadOpenApiDocument() as Doc;
  const after = loadOpenApiDocument() as Doc;
  edit(after);
  const changes = diffContracts(before, after);
  if (want.what === '') {
    expect(changes).toEqual([]);
    return;
  }
  expect(changes).toContainEqual({ where: expect.stringContaining(want.where), what: want.what, breaks: want.breaks });
  // One edit, one classification: nothing else is reported as breaking someone it does not.
  const parties = new Set(changes.flatMap((change) => change.breaks));
  expect([...parties].sort()).toEqual([...want.breaks].sort());
});

it('the command exits 1 on a breaking change, 0 on a compatible one, 2 on an unreadable file', async () => {
  const work = mkdtempSync(path.join(tmpdir(), 'contract-diff-'));
  try {
    const before = loadOpenApiDocument() as Doc;
    const breaking = loadOpenApiDocument() as Doc;
    searchParameter(breaking, 'kind')['required'] = true;
    const compatible = loadOpenApiDocument() as Doc;
    schemas(compatible)['EventPage'].properties.total = { type: 'integer' };
    for (const [name, document] of Object.entries({ before, breaking, compatible }))
      writeFileSync(path.join(work, `${name}.json`), JSON.stringify(document));
    const run = (...files: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          'node',
          ['--import', 'tsx', 'src/cli/contract.ts', 'diff', ...files.map((file) => path.join(work, file))],
          { cwd: path.resolve(__dirname, '../..') },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
        );
      });
    const broke = await run('before.json', 'breaking.json');
    expect(broke.code).toBe(1);
    expect(broke.stdout).toContain(`BREAKING for clients: GET ${SEARCH} query parameter kind: parameter made required`);
    const fine = await run('before.json', 'compatible.json');
    expect(fine).toMatchObject({ code: 0, stdout: expect.stringContaining(`compatible: GET ${SEARCH} response 200.total: optional property added`) });
    const missing = await run('before.json', 'nowhere.json');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('contract diff: cannot read');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
