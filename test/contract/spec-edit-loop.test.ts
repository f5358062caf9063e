/**
 * The regeneration loop, end to end, on a copy of the project: an edit to openapi.yaml is
 * reported as drift until `npm run generate` runs, and then the compiler names the files
 * that must change. node_modules is linked, not copied. The compiler runs in this process
 * (project-typecheck.ts), so the copies share the parse of the declaration files they link.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, parseDocument, type Document, type YAMLMap, type YAMLSeq } from 'yaml';
import { SEARCH_PATH, type OpenApiDocument } from '../../src/contract';
import { DEFAULT_START_TIME, runFixture } from '../../src/fixture';
import { spawnScript } from '../../dev/process/server-process';
import { FAULT_PREFIX, operationFaults, startFaultRouter, type Fault } from '../kit/support/fault-injector';
import { failedIds, runKit } from '../kit/support/run-kit';
import { listeningUrl } from '../support/listening-url';
import { documentedCodes, schemathesisCodesByFault } from '../support/schemathesis-fault-table';
import { SAMPLE_CONVERSATIONS } from '../../dev/schemathesis/dictionaries';
import type { Program } from 'typescript';
import { type Diagnostic, projectDiagnostics, projectProgram } from './project-typecheck';

const ROOT = path.resolve(__dirname, '../..');
const EXAMPLES = 'test/contract/examples.ts';
/** What generation and type-checking need; tsconfig.json is written, not copied. */
const COPIED = [
  'openapi.yaml',
  'redocly.yaml',
  'package.json',
  'tsconfig.build.json',
  'scripts',
  'generated',
  'src',
  'packages',
  'LICENSE',
  EXAMPLES,
];
/** What `npm run generate` says when it rewrote generated/; the copy is not a git checkout, so there is no committed contract to diff against. */
const WROTE_GENERATED = { status: 0, stdout: expect.stringMatching(/^wrote generated\/openapi\.ts, generated\/openapi\.json\n/), stderr: '' };
/** None of its own: jest.config.js's hang guard applies, since a busy machine makes this loop slower, not wrong. */
const TIMEOUT_MS = undefined;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

const copies: string[] = [];
// Others edit src/ while this runs: every case copies one snapshot, whose errors before any
// edit are the baseline. The cases run concurrently, and Jest starts concurrent tests before
// beforeAll hooks, so each awaits the one preparation itself. Building the snapshot's program
// holds this thread, so it waits until the cases have started their first generators, which
// then run in their own processes meanwhile.
let snapshot = ROOT;
let snapshotProgram: Program | undefined;
let preparation: Promise<void> | undefined;

function prepare(): Promise<void> {
  preparation ??= (async () => {
    snapshot = copyProject(ROOT);
    setImmediate(snapshotProgramBuilt);
  })();
  return preparation;
}

function snapshotProgramBuilt(): Program {
  snapshotProgram ??= projectProgram(snapshot);
  return snapshotProgram;
}

afterAll(() => {
  for (const directory of copies) rmSync(directory, { recursive: true, force: true });
});

test.concurrent(
  'a new required EventPage field: drift until regenerated, then the compiler names the files that build pages',
  async () => {
    await prepare();
    const project = copyProject(snapshot);
    expect(await generate(project, '--check')).toEqual({ status: 0, stdout: '', stderr: '' });

    editSpec(project, (spec, before) => {
      expect(before.components.schemas['EventPage']?.['required']).toEqual(['items']);
      spec.setIn(
        ['components', 'schemas', 'EventPage', 'properties', 'total'],
        spec.createNode({ type: 'integer', minimum: 0, description: 'How many events match the filters.' }),
      );
      spec.setIn(['components', 'schemas', 'EventPage', 'required'], spec.createNode(['items', 'total']));
    });

    expect(await generate(project, '--check')).toEqual({
      status: 1,
      stdout: '',
      stderr:
        'generated/ is out of date with openapi.yaml: generated/openapi.ts, generated/openapi.json.\nRun `npm run generate` and commit the result.\n',
    });
    expect(await generate(project)).toEqual(WROTE_GENERATED);
    expect(await generate(project, '--check')).toEqual({ status: 0, stdout: '', stderr: '' });

    const introduced = await introducedBy(await typecheck(project));
    expect(introduced.filter((diagnostic) => !diagnostic.message.includes("'total'"))).toEqual([]);
    expect(introduced.filter((diagnostic) => diagnostic.file === EXAMPLES)).toEqual([
      {
        file: EXAMPLES,
        line: lineOf(project, EXAMPLES, 'export const EXAMPLE_PAGE: EventPage'),
        code: 'TS2741',
        message: expect.stringContaining("Property 'total' is missing"),
      },
    ]);
    const pageBuilders = sourceFiles(project).filter((file) => /(:\s*EventPage\s*=|satisfies\s+EventPage\b)/.test(read(project, file)));
    expect(pageBuilders).toContain(EXAMPLES);
    expect(filesNamed(introduced)).toEqual(expect.arrayContaining(pageBuilders));
  },
  TIMEOUT_MS,
);

test.concurrent(
  'a renamed query parameter (page_id to cursor): the compiler names the client that sends page_id',
  async () => {
    await prepare();
    const project = copyProject(snapshot);

    editSpec(project, (spec, before) => {
      const operation = before.paths[SEARCH_PATH]?.['get'] as { parameters: Array<{ name: string }> };
      expect(operation.parameters.filter((parameter) => parameter.name === 'page_id')).toHaveLength(1);
      const parameters = spec.getIn(['paths', SEARCH_PATH, 'get', 'parameters']) as YAMLSeq<YAMLMap<string, unknown>>;
      parameters.items.find((parameter) => parameter.get('name') === 'page_id')?.set('name', 'cursor');
    });

    expect(await generate(project)).toEqual(WROTE_GENERATED);

    const introduced = await introducedBy(await typecheck(project));
    expect(introduced.filter((diagnostic) => !diagnostic.message.includes("'page_id'"))).toEqual([]);
    expect(introduced.filter((diagnostic) => diagnostic.file === EXAMPLES)).toEqual([
      {
        file: EXAMPLES,
        line: lineOf(project, EXAMPLES, '  page_id: terminalObservation.id,', 'export const EXAMPLE_SEARCH_QUERY'),
        code: 'TS2353',
        message: expect.stringContaining("'page_id' does not exist"),
      },
    ]);
    // The client sends page_id in the query of its requests (an object property `page_id:`).
    const clientSenders = sourceFiles(project).filter((file) => file.startsWith('src/client/') && /\bpage_id\s*:/.test(read(project, file)));
    expect(clientSenders).not.toEqual([]);
    expect(filesNamed(introduced)).toEqual(expect.arrayContaining([EXAMPLES, ...clientSenders]));
  },
  TIMEOUT_MS,
);

test.concurrent(
  'a new operation without a handler: the compiler names its operationId where the handlers are',
  async () => {
    await prepare();
    const project = copyProject(snapshot);

    editSpec(project, (spec) => {
      spec.setIn(
        ['paths', '/api/conversations/{conversation_id}/events/latest'],
        spec.createNode({
          get: {
            operationId: 'getLatestConversationEvent',
            summary: 'The latest event',
            tags: ['Events'],
            parameters: [{ name: 'conversation_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
            responses: { '200': { description: 'The event.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Event' } } } } },
          },
        }),
      );
    });

    expect(await generate(project)).toEqual(WROTE_GENERATED);

    expect(await introducedBy(await typecheck(project))).toEqual([
      {
        file: 'src/server/handlers.ts',
        line: lineOf(project, 'src/server/handlers.ts', '  return {'),
        code: 'TS2741',
        message: expect.stringContaining("Property 'getLatestConversationEvent' is missing"),
      },
    ]);
  },
  TIMEOUT_MS,
);

test.concurrent(
  'an operation removed: the compiler names its handler and the client that calls it',
  async () => {
    await prepare();
    const project = copyProject(snapshot);
    const COUNT_PATH = '/api/conversations/{conversation_id}/events/count';

    editSpec(project, (spec, before) => {
      expect(Object.keys(before.paths)).toContain(COUNT_PATH);
      spec.deleteIn(['paths', COUNT_PATH]);
    });

    expect(await generate(project)).toEqual(WROTE_GENERATED);

    const introduced = await introducedBy(await typecheck(project));
    expect(introduced).toContainEqual(
      expect.objectContaining({
        file: 'src/server/handlers.ts',
        message: expect.stringContaining("'countConversationEvents' does not exist in type 'OperationHandlers'"),
      }),
    );
    expect(filesNamed(introduced)).toEqual(expect.arrayContaining(['src/client/client.ts', 'src/server/handlers.ts']));
  },
  TIMEOUT_MS,
);

const LATEST_PATH = '/api/conversations/{conversation_id}/events/latest';

/** The handler a developer writes for the new operation: the `count` latest events, newest first. */
const LATEST_HANDLER = `
    async getLatestConversationEvents({ query, parsed }) {
      const hex = conversationHex(parsed);
      const page = await store.search(hex, searchCriteriaOf({ limit: query.count, sort_order: 'TIMESTAMP_DESC' }, parsed));
      if (!page) return conversationNotFound(hex);
      return { status: 200, body: eventPageBody(page.itemsJson, null) };
    },
`;

/** A caller of the new operation through the client, with no client code written for it; a wrongly typed call must not compile. */
const LATEST_CALLER = `import { createAgentServerClient } from './client';

export async function latestEventIds(baseUrl: string, conversationId: string, count: number): Promise<(string | undefined)[]> {
  const client = createAgentServerClient({ baseUrl });
  const { data, error } = await client.api.GET('${LATEST_PATH}', { params: { path: { conversation_id: conversationId }, query: { count } } });
  if (!data) throw new Error(JSON.stringify(error));
  return data.items.map((event) => event.id);
}

export function notCompiled(baseUrl: string): unknown {
  const client = createAgentServerClient({ baseUrl });
  // @ts-expect-error count is an integer in the contract
  return client.api.GET('${LATEST_PATH}', { params: { path: { conversation_id: 'x' }, query: { count: 'two' } } });
}
`;

test.concurrent(
  "the README's edit (limit maximum 100 -> 50) and a new operation with its handler: rebuilt, the kit passes the server at the new bounds, exercises the new operation, and catches faults in it; the client calls it typed",
  async () => {
    await prepare();
    const project = copyProject(snapshot);
    editSpec(project, (spec) => {
      spec.setIn(['paths', SEARCH_PATH, 'get', 'parameters', 2, 'schema', 'maximum'], 50);
      spec.setIn(['paths', SEARCH_PATH, 'get', 'parameters', 2, 'schema', 'default'], 50);
      spec.setIn(['paths', LATEST_PATH], spec.createNode(latestOperation()));
    });
    const handlers = read(project, 'src/server/handlers.ts');
    writeFileSync(
      path.join(project, 'src/server/handlers.ts'),
      handlers.replace('\n    async listStoredConversations()', `${LATEST_HANDLER}\n    async listStoredConversations()`),
    );
    writeFileSync(path.join(project, 'src/latest-caller.ts'), LATEST_CALLER);
    expect(await generate(project)).toEqual(WROTE_GENERATED);
    const build = await run(project, ['scripts/build.mjs']);
    expect({ status: build.status, compiler: build.stdout }).toEqual({ status: 0, compiler: '' });

    const data = mkdtempSync(path.join(os.tmpdir(), 'spec-edit-data-'));
    copies.push(data);
    const fixture = runFixture({
      out: data,
      events: 120,
      seed: 'spec-edit',
      conversationId: undefined,
      manifest: path.join(data, 'manifest.json'),
      startTime: DEFAULT_START_TIME,
      largePayloadBytes: 2000,
    });
    // Beside it, the conversations Schemathesis draws its conversation ids from, so its requests reach stored ones.
    cpSync(SAMPLE_CONVERSATIONS, data, { recursive: true });
    const server = await startBuiltServer(project, data);
    try {
      // The rebuilt kit, and this checkout's kit handed the edited document: both pass, at the new bounds.
      // The two kits run side by side: each writes its own report.
      const kits = [
        { root: project, script: 'dist/src/cli/contract.js', compiled: true, extra: [] },
        { root: ROOT, script: 'src/cli/contract.ts', compiled: false, extra: ['--contract', path.join(project, 'openapi.yaml')] },
      ];
      const outcomes = await Promise.all(
        kits.map((kit) => {
          const report = path.join(data, `report-${kit.compiled ? 'rebuilt' : 'installed'}.json`);
          const args = [
            '--base-url',
            server.url,
            '--conversation-id',
            fixture.conversationIdHex,
            '--seed',
            '7',
            '--runs',
            '5',
            '--json',
            report,
            // No request given up on a clock: a busy machine makes the run slower, not "cannot run".
            '--timeout-ms',
            String(15 * 60_000),
            ...kit.extra,
          ];
          return runScript(kit.root, kit.script, args, kit.compiled).then((outcome) => ({ outcome, report }));
        }),
      );
      for (const { outcome, report } of outcomes) {
        const result = JSON.parse(readFileSync(report, 'utf8')) as KitReport;
        const checks = result.suites.flatMap((suite) => suite.checks);
        const byId = (id: string) => checks.find((check) => check.id === id);
        expect({ exit: outcome.status, failed: checks.filter((check) => check.status === 'failed').map((check) => check.id) }).toEqual({
          exit: 0,
          failed: [],
        });
        expect(byId('errors.limit-above-max')).toMatchObject({ status: 'passed', title: 'limit=51 is rejected with 422 naming limit' });
        expect(byId('ref.errors.limit-above-max')?.status).toBe('passed');
        expect(byId('operations.getLatestConversationEvents.valid')).toMatchObject({
          status: 'passed',
          details: expect.stringMatching(/^[1-9]\d* distinct generated requests/),
        });
        expect(byId('operations.getLatestConversationEvents.invalid')).toMatchObject({
          status: 'passed',
          details: expect.stringContaining('count "6" (one above the maximum 5)'),
        });
        const latest = result.coverage.operations.find((operation) => operation.operationId === 'getLatestConversationEvents');
        expect(latest?.requests).toBeGreaterThan(10);
        expect(latest?.parametersNotExercised).toEqual([]);
      }

      const caller = await run(project, [
        '-e',
        `require('./dist/src/latest-caller.js').latestEventIds(${JSON.stringify(server.url)}, ${JSON.stringify(fixture.conversationIdHex)}, 2).then((ids) => console.log(JSON.stringify(ids)))`,
      ]);
      const { events } = JSON.parse(readFileSync(fixture.manifest, 'utf8')) as { events: { id: string; timestamp: string }[] };
      // TIMESTAMP_DESC: newest first, equal timestamps in reverse storage order.
      const newestFirst = [...events].reverse().sort((a, b) => b.timestamp.localeCompare(a.timestamp));
      expect(JSON.parse(caller.stdout)).toEqual(newestFirst.slice(0, 2).map((event) => event.id));

      await expectFaultsCaught(project, server.url, fixture.conversationIdHex, data);
    } finally {
      await server.stop(5000);
    }
  },
  TIMEOUT_MS,
);

interface KitReport {
  suites: { checks: { id: string; status: string; title: string; details?: string }[] }[];
  coverage: { operations: { operationId: string; requests: number; parametersNotExercised: string[] }[] };
}

function latestOperation(): Record<string, unknown> {
  const json = (schema: string) => ({ content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } });
  return {
    get: {
      operationId: 'getLatestConversationEvents',
      summary: 'The latest events',
      tags: ['Events'],
      parameters: [
        { name: 'conversation_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
        { name: 'count', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 5, default: 1 } },
      ],
      responses: {
        '200': { description: 'The latest events, newest first.', ...json('EventPage') },
        '404': { description: 'The conversation does not exist.', ...json('NotFoundError') },
        '422': { description: 'A parameter failed validation.', ...json('HTTPValidationError') },
      },
    },
  };
}

/** The rows of docs/contract-kit.md's "Injected faults" table for the new operation's faults. */
const FAULT_ROWS = {
  serverErrorOnBadParameter: 'new operation: 500 on an out-of-range parameter',
  undeclaredStatus: 'new operation: an undeclared status (203)',
  bodyBreaksSchema: 'new operation: a body that breaks its schema',
  wrongContentType: 'new operation: `Content-Type: text/plain`',
};

/**
 * The new operation broken one way at a time, each fault under its own prefix of one fault router:
 * each is caught by the kit, judging with the edited contract; one Schemathesis process, on the
 * same operation under every prefix, reports the codes the table gives each fault.
 */
async function expectFaultsCaught(project: string, upstream: string, conversationId: string, workDirectory: string): Promise<void> {
  const faults: Record<string, Fault> = operationFaults(
    (url) => url.pathname.endsWith('/events/latest'),
    (url) => !/^[1-5]$/.test(url.searchParams.get('count') ?? '1'),
  );
  const document = parse(readFileSync(path.join(project, 'openapi.yaml'), 'utf8')) as OpenApiDocument;
  const router = await startFaultRouter(upstream, faults);
  const caught: Record<string, string[]> = {};
  try {
    const kits = Object.keys(faults).map(async (name) => {
      const result = await runKit({
        baseUrl: `${router.url}${FAULT_PREFIX}${name}`,
        conversationId,
        document,
        only: ['operations.getLatestConversationEvents'],
        levels: ['seed'],
      });
      caught[name] = failedIds(result);
    });
    const schemathesis = schemathesisCodesByFault({
      routerUrl: router.url,
      document,
      operationIdsByFault: Object.fromEntries(Object.keys(faults).map((name) => [name, ['getLatestConversationEvents']])),
      workDirectory,
    });
    const [, { codes }] = await Promise.all([Promise.all(kits), schemathesis]);
    const bySchemathesis = Object.fromEntries(Object.entries(FAULT_ROWS).map(([name, row]) => [row, codes.get(name) ?? []]));
    expect(caught).toEqual({
      serverErrorOnBadParameter: ['operations.getLatestConversationEvents.invalid'],
      undeclaredStatus: ['operations.getLatestConversationEvents.valid'],
      bodyBreaksSchema: ['operations.getLatestConversationEvents.valid'],
      wrongContentType: ['operations.getLatestConversationEvents.valid'],
    });
    expect(bySchemathesis).toEqual(documentedCodes(Object.values(FAULT_ROWS)));
  } finally {
    await router.stop();
  }
}

/** The copy's compiled server, as `npm start` runs it, on a port the kernel picks. */
async function startBuiltServer(project: string, conversations: string): Promise<{ url: string; stop(graceMs: number): Promise<unknown> }> {
  const child = spawnScript('dist/src/cli/start.js', ['--port', '0', '--conversations-path', conversations], {
    projectRoot: project,
    compiled: true,
    label: 'rebuilt server',
  });
  const { url } = await listeningUrl(child);
  return { url, stop: (graceMs) => child.stop(graceMs) };
}

function runScript(root: string, script: string, args: string[], compiled: boolean): Promise<Run> {
  return run(root, [...(compiled ? [] : ['--import', 'tsx']), path.join(root, script), ...args]);
}

/** Copies what generation and tsc need from `from` into a fresh temporary directory. */
function copyProject(from: string): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'spec-edit-loop-'));
  copies.push(directory);
  for (const entry of COPIED) cpSync(path.join(from, entry), path.join(directory, entry), { recursive: true });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(directory, 'node_modules'), 'dir');
  const tsconfig = JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
  // Only what the two cases need, so tsc stays fast: the sources, the generated types and the
  // examples, which hold a typed EventPage and SearchQuery of their own.
  const narrowed = { ...tsconfig, compilerOptions: { ...tsconfig.compilerOptions, types: ['node'] }, include: ['src', 'generated', EXAMPLES] };
  writeFileSync(path.join(directory, 'tsconfig.json'), JSON.stringify(narrowed, null, 2));
  return directory;
}

function editSpec(project: string, edit: (spec: Document, before: OpenApiDocument) => void): void {
  const file = path.join(project, 'openapi.yaml');
  const text = readFileSync(file, 'utf8');
  const spec = parseDocument(text);
  edit(spec, parse(text) as OpenApiDocument);
  writeFileSync(file, spec.toString());
}

/** Runs node in `project`. Asynchronous, so that the cases' compilers and generators run side by side. */
function run(project: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: project, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

function generate(project: string, ...flags: string[]): Promise<Run> {
  return run(project, ['scripts/generate.mjs', ...flags]);
}

/** `tsc --noEmit -p tsconfig.json` in `project`: its errors (project-typecheck.ts). */
function typecheck(project: string): Promise<Diagnostic[]> {
  return projectDiagnostics(projectProgram(project), project);
}

/**
 * The errors that the unedited snapshot did not have: others' unfinished work is not counted.
 * An error is the same one only in the same file, so the snapshot is checked only in the files
 * the edited copy has errors in (and for the errors of no file).
 */
async function introducedBy(diagnostics: Diagnostic[]): Promise<Diagnostic[]> {
  const key = (diagnostic: Diagnostic) => `${diagnostic.file}:${diagnostic.line}:${diagnostic.code}:${diagnostic.message}`;
  const baseline = await projectDiagnostics(
    snapshotProgramBuilt(),
    snapshot,
    filesNamed(diagnostics).filter((file) => file !== ''),
  );
  const before = new Set(baseline.map(key));
  return diagnostics.filter((diagnostic) => !before.has(key(diagnostic)));
}

function filesNamed(diagnostics: Diagnostic[]): string[] {
  return [...new Set(diagnostics.map((diagnostic) => diagnostic.file))].sort();
}

/** The TypeScript files the copied tsconfig type-checks, relative to the project. */
function sourceFiles(project: string): string[] {
  const underSrc = readdirSync(path.join(project, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.posix.join('src', file.split(path.sep).join('/')));
  return [...underSrc, EXAMPLES].sort();
}

function read(project: string, file: string): string {
  return readFileSync(path.join(project, file), 'utf8');
}

/** The 1-based number of the first line equal to (or starting with) `text`, after the line starting with `after`. */
function lineOf(project: string, file: string, text: string, after?: string): number {
  const lines = read(project, file).split('\n');
  const start = after === undefined ? 0 : lines.findIndex((line) => line.startsWith(after));
  const index = lines.findIndex((line, position) => position >= start && line.startsWith(text));
  if (start < 0 || index < 0) throw new Error(`${file} has no line ${JSON.stringify(text)}`);
  return index + 1;
}
