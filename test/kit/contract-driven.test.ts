import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { loadOpenApiDocument } from '../../src/contract';
import { loadContract } from '../../src/kit/contract-source';
import { FAULTS, startFaultInjector } from './support/fault-injector';
import { startOurServer, type OurServer } from './support/our-server';
import { allChecksOf, failedIds, notPassed, runKit } from './support/run-kit';

/*
 * The contract-driven layer and the CI gates around it, against our real server (and our
 * server with a fault in front of it): every operation of the document gets requests, an
 * operation the server lacks is "not implemented" unless asked for, --changed-since runs
 * what an edit touches, --require-coverage names what a run left unexercised.
 */
let ours: OurServer;
const scratch = mkdtempSync(path.join(os.tmpdir(), 'contract-driven-'));

beforeAll(async () => {
  ours = await startOurServer({ events: 120, seed: 'contract-driven' });
});

afterAll(async () => {
  await ours?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const target = () => ({ baseUrl: ours.url, conversationId: ours.conversationId, levels: ['seed' as const] });

it('every operation of the document is exercised, valid and invalid requests alike, and our server passes them', async () => {
  const result = await runKit({ ...target(), only: ['operations.'] });
  expect(notPassed(result)).toEqual([]);
  const ids = allChecksOf(result).map((check) => check.id);
  for (const operationId of ['searchConversationEvents', 'countConversationEvents', 'getConversationEvent', 'listStoredConversations']) {
    expect(ids).toContain(`operations.${operationId}.valid`);
    expect(ids).toContain(`operations.${operationId}.unknown`);
  }
  // A fresh UUID for each id, one at a time: the event's conversation unknown, then the event.
  const getEvent = allChecksOf(result).find((check) => check.id === 'operations.getConversationEvent.unknown');
  expect(getEvent?.details).toMatch(/^2 requests: conversation_id=[0-9a-f-]{36}; event_id=kit-unknown-[0-9a-f-]{36}$/);
  const search = allChecksOf(result).find((check) => check.id === 'operations.searchConversationEvents.invalid');
  expect(search?.details).toContain('limit "101" (one above the maximum 100)');
  expect(search?.details).toContain('limit "0" (one below the exclusiveMinimum 0)');
  expect(search?.details).toContain('sort_order "not-one-of-the-enum"');
  expect(result.coverage?.operations.every((operation) => operation.requests > 0)).toBe(true);
});

it('an operation the server does not have is reported as not implemented, and fails only with --require-implemented', async () => {
  const proxy = await startFaultInjector(ours.url, FAULTS.withoutCountAndGetEvent);
  try {
    const options = { ...target(), baseUrl: proxy.url, only: ['operations.countConversationEvents'] };
    const lenient = await runKit(options);
    expect(allChecksOf(lenient).map((check) => [check.id, check.status])).toEqual([
      ['operations.countConversationEvents.valid', 'not-implemented'],
      ['operations.countConversationEvents.unknown', 'not-implemented'],
      ['operations.countConversationEvents.invalid', 'not-implemented'],
      ['operations.countConversationEvents.undeclared-methods', 'passed'],
    ]);
    expect(lenient.outcome).toBe('passed');
    const strict = await runKit({ ...options, requireImplemented: true });
    expect(failedIds(strict)).toEqual([
      'operations.countConversationEvents.valid',
      'operations.countConversationEvents.unknown',
      'operations.countConversationEvents.invalid',
    ]);
  } finally {
    await proxy.stop();
  }
});

it('--changed-since runs only the checks of the operations the diff reports changed', async () => {
  const old = loadOpenApiDocument();
  const stored = old.paths['/api/stored-conversations'] as { get: { responses: Record<string, unknown> } };
  delete stored.get.responses['503'];
  const result = await runKit({ ...target(), changedSince: old });
  expect(allChecksOf(result).map((check) => check.id)).toEqual([
    'operations.listStoredConversations.valid',
    'operations.listStoredConversations.unknown',
    'operations.listStoredConversations.invalid',
    'operations.listStoredConversations.undeclared-methods',
    'schema.responses',
    'responses.declared',
    'errors.no-server-errors',
  ]);
  const unchanged = await runKit({ ...target(), changedSince: loadOpenApiDocument() });
  expect({ checks: allChecksOf(unchanged), notes: unchanged.notes }).toEqual({
    checks: [],
    notes: ['no operation changed since the old contract (--changed-since): nothing to run'],
  });
});

it('--require-coverage fails a run that left declared statuses unexercised, naming them', async () => {
  // The valid requests alone: the unknown ids of `.unknown` would exercise the 404.
  const result = await runKit({ ...target(), only: ['operations.searchConversationEvents.valid'], requireCoverage: true });
  expect(failedIds(result)).toEqual(['coverage.required']);
  const gate = allChecksOf(result).find((check) => check.id === 'coverage.required')!;
  expect(gate.findings.map((finding) => finding.message)).toContainEqual(
    expect.stringMatching(
      /^searchConversationEvents \(GET \/api\/conversations\/\{conversation_id\}\/events\/search\): never exercised statuses 404/,
    ),
  );
  // 5xx are never required, nor 401 without a session key.
  expect(gate.findings.map((finding) => finding.message).join('\n')).not.toMatch(/statuses [^;]*(401|500|503)/);
});

it('a contract without count: the checks written for it say so, and the run notes it', async () => {
  const document = loadOpenApiDocument();
  delete document.paths['/api/conversations/{conversation_id}/events/count'];
  const result = await runKit({ ...target(), levels: ['reference'], document, only: ['ref.count.'] });
  const checks = allChecksOf(result);
  expect(checks.length).toBeGreaterThan(0);
  expect(checks.map((check) => [check.status, check.details])).toEqual(
    checks.map(() => ['skipped', 'the contract declares no countConversationEvents: its checks do not apply']),
  );
  expect(result.notes).toContain('the contract declares no countConversationEvents (count equals the walk): its checks are skipped');
});

describe('--contract', () => {
  it('reads YAML and JSON files, and says what is wrong with one that is not a contract', async () => {
    const document = loadOpenApiDocument();
    const yamlFile = path.join(scratch, 'contract.yaml');
    writeFileSync(yamlFile, stringify(document));
    const jsonFile = path.join(scratch, 'contract.json');
    writeFileSync(jsonFile, JSON.stringify(document));
    for (const file of [yamlFile, jsonFile]) expect(await loadContract(file)).toEqual({ ok: true, document });

    const notContract = path.join(scratch, 'not.yaml');
    writeFileSync(notContract, 'just: text\n');
    expect(await loadContract(notContract)).toEqual({
      ok: false,
      message: `--contract ${notContract} is not an OpenAPI document (no paths); pass openapi.yaml or its JSON form`,
    });
    const split = path.join(scratch, 'split.yaml');
    writeFileSync(split, stringify({ openapi: '3.1.0', paths: { '/x': { $ref: 'paths/x.yaml' } } }));
    expect(await loadContract(split)).toMatchObject({ ok: false, message: expect.stringContaining('bundle it into one document first') });
    expect(await loadContract(path.join(scratch, 'absent.yaml'))).toMatchObject({ ok: false, message: expect.stringContaining('cannot read') });
  });

  it('fetches a URL: the contract a server publishes', async () => {
    const read = await loadContract(`${ours.url}/openapi.json`);
    expect(read.ok && Object.keys(read.document.paths)).toEqual(Object.keys(loadOpenApiDocument().paths));
    expect(await loadContract(`${ours.url}/no-such-document`)).toEqual({
      ok: false,
      message: `--contract ${ours.url}/no-such-document answered 404; pass the URL of the OpenAPI document itself`,
    });
  });
});
