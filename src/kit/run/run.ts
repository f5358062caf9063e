/**
 * One run of the kit: discover the conversation, run the selected checks one after the
 * other (so every request is attributed to one check and traffic stays sequential and
 * bounded), then the audits, then the `--compare` verdicts. Returns plain data; deciding
 * the exit code and printing are the CLI's job.
 */
import { loadOpenApiDocument, type OpenApiDocument } from '../../contract';
import type { AllowEntry } from './allow-list';
import { allChecks } from './checks';
import { createMirror, setValuedProperties, type Mirror } from './compare';
import { createCheckContext, fillTemplate, type RunSettings } from './context';
import { uuidHex } from './conversation-id';
import { discover } from './discovery';
import type { FixtureManifest } from './fixture-manifest';
import { createExchangeJudge, type ExchangeVerdict } from '../exchange-judge';
import { createTransport, type Exchange, type Transport } from '../http';
import { allowNotes, timeZoneNotes } from './notes';
import { compareResults, toResult, type CheckResult, type RunResult } from './result';
import { createResponseValidator, type ResponseValidator } from '../schema-validator';
import { changedOperationIds } from '../diff/changed-operations';
import { COVERAGE_GATE, coverageGate } from './coverage-gate';
import { operationOfCheck } from './checks/operations';
import { KNOWN_OPERATIONS, readSearchContract, type SearchContract } from '../search-contract';
import { createSearch } from './search-request';
import { createTrafficAudit } from './traffic-audit';
import type { Check, CheckOutcome, Level } from './types';

export type { CheckResult, CheckStatus, ReportedFinding, RunResult, SuiteResult } from './result';

export interface RunOptions {
  baseUrl: string;
  conversationId: string;
  levels: readonly Level[];
  allow?: readonly AllowEntry[];
  sessionApiKey?: string;
  manifest?: FixtureManifest;
  compareUrl?: string;
  seed: number;
  runs: number;
  maxRequests: number;
  timeoutMs: number;
  propertyTimeLimitMs: number;
  /** Only checks whose id starts with one of these prefixes (all when absent). */
  only?: readonly string[];
  fetch?: typeof fetch;
  /** The contract to judge with (`--contract`); the bundled one when absent. */
  document?: OpenApiDocument;
  /** Only these operations get contract-driven requests (`--changed-since`); all when absent. */
  operations?: readonly string[];
  /** `--require-implemented`: an operation the server lacks fails the run. */
  requireImplemented?: boolean;
  /** `--require-coverage`: a declared status, parameter or event kind the run did not exercise fails it. */
  requireCoverage?: boolean;
  /** `--changed-since OLD`: the old contract; only what touches the operations changed since then runs. */
  changedSince?: OpenApiDocument;
}

export const DEFAULT_RUN_OPTIONS = {
  levels: ['seed', 'reference'] as readonly Level[],
  runs: 20,
  maxRequests: 2000,
  timeoutMs: 10_000,
  propertyTimeLimitMs: 15_000,
} as const;

export async function runContract(options: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const transport = createTransport({
    baseUrl: options.baseUrl,
    timeoutMs: options.timeoutMs,
    maxRequests: options.maxRequests,
    ...optional('sessionApiKey', options.sessionApiKey),
    ...optional('fetch', options.fetch),
  });
  const result: RunResult = {
    target: {
      baseUrl: transport.baseUrl,
      conversationId: options.conversationId,
      ...optional('compareUrl', options.compareUrl),
      ...(options.manifest ? { fixture: true } : {}),
    },
    seed: options.seed,
    runs: options.runs,
    levels: [...options.levels],
    startedAt: new Date(started).toISOString(),
    durationMs: 0,
    requests: { sent: 0, max: options.maxRequests },
    outcome: 'passed',
    suites: [],
    notes: [],
  };
  let second: Transport | undefined;
  const finish = () => {
    result.durationMs = Date.now() - started;
    result.requests.sent = transport.sent;
    if (second) result.requests.mirrored = second.sent;
    return redactSecret(result, options.sessionApiKey);
  };
  const giveUp = (problem: string) => {
    result.outcome = 'cannot-run';
    result.problem = problem;
    return finish();
  };

  const argumentProblem = checkTarget(options);
  if (argumentProblem) return giveUp(argumentProblem);
  const document = options.document ?? bundledDocument();
  const read = readSearchContract(document);
  if (!read.ok) return giveUp(`The kit cannot judge with this contract: ${read.problem}.`);
  const { contract } = read;
  result.notes.push(...contract.absent.map((operation) => `the contract declares no ${operation}: its checks are skipped`));
  const inScope = options.changedSince ? changedOperationIds(options.changedSince, contract.table) : undefined;
  if (inScope?.length === 0) {
    result.notes.push('no operation changed since the old contract (--changed-since): nothing to run');
    return finish();
  }

  const audit = createTrafficAudit(responseValidator(document), contract.table);
  transport.observe(audit.observe);
  second = options.compareUrl
    ? createTransport({
        baseUrl: options.compareUrl,
        timeoutMs: options.timeoutMs,
        maxRequests: options.maxRequests,
        ...optional('sessionApiKey', options.sessionApiKey),
        ...optional('fetch', options.fetch),
      })
    : undefined;
  let mirror: Mirror | undefined;
  if (second) {
    const reachable = await second.get(
      `${fillTemplate(contract.search.template, { conversation_id: options.conversationId })}?limit=${contract.pageSize.minimum}`,
    );
    if (!reachable.ok) return giveUp(`Cannot reach the --compare server (${reachable.failure.message}) at ${reachable.failure.url}. Is it running?`);
    mirror = createMirror(second, setValuedProperties(document), {
      names: { first: `the server under test (${transport.baseUrl})`, second: `the --compare server (${second.baseUrl})` },
      operationOf: (method, path) => contract.table.match(method, path)?.operation.operationId,
    });
    transport.observe(mirror.observe);
  }

  const search = createSearch(transport, options.conversationId);
  const discovery = await discover(search, `Conversation ${options.conversationId} on ${transport.baseUrl}`, contract.pageSize.maximum);
  if (!discovery.ok && 'cannotRun' in discovery) return giveUp(discovery.cannotRun);

  const withKey = options.sessionApiKey !== undefined;
  const allow = new Map((options.allow ?? []).map((entry) => [entry.id, entry.reason]));
  const results: CheckResult[] = [];
  if (!discovery.ok) {
    results.push(
      toResult(
        { id: 'discovery', level: 'seed', title: 'the unfiltered search of the conversation returns pages' },
        { status: 'failed', findings: discovery.findings },
        0,
        0,
        allow,
        withKey,
      ),
    );
  } else {
    const settings: RunSettings = { seed: options.seed, runs: options.runs, propertyTimeLimitMs: options.propertyTimeLimitMs };
    const context = createCheckContext({
      conversationId: options.conversationId,
      data: discovery.data,
      transport,
      search,
      settings,
      audit,
      contract,
      judge: judgeOf(document),
      operationsInScope: new Set(inScope ?? contract.table.operations.map((operation) => operation.operationId)),
      requireImplemented: options.requireImplemented === true,
      ...(options.manifest ? { manifest: options.manifest } : {}),
      ...optional('sessionApiKey', options.sessionApiKey),
    });
    const selected = selectChecks(options, contract, inScope);
    for (const check of [...selected.filter((candidate) => !candidate.audit), ...selected.filter((candidate) => candidate.audit)]) {
      transport.setCheck(check.id);
      const sentBefore = transport.sent;
      const checkStarted = Date.now();
      const outcome = await runSafely(check, context);
      results.push(toResult(check, outcome, Date.now() - checkStarted, transport.sent - sentBefore, allow, withKey));
    }
  }

  if (options.requireCoverage && discovery.ok) {
    const outcome = coverageGate(audit.coverage.summary(), results, { withKey, inScope });
    results.push(toResult(COVERAGE_GATE, outcome, 0, 0, allow, withKey));
  }
  result.suites = options.levels.map((level) => ({ name: level, checks: results.filter((check) => check.suite === level) }));
  if (mirror) result.suites.push({ name: 'compare', checks: compareResults(mirror, allow, withKey) });
  result.notes.push(...allowNotes(allow, result.suites, contract), ...timeZoneNotes(result.suites));
  result.coverage = audit.coverage.summary();
  result.outcome = result.suites.some((suite) => suite.checks.some((check) => check.status === 'failed')) ? 'failed' : 'passed';
  return finish();
}

let bundled: OpenApiDocument | undefined;
const validators = new WeakMap<OpenApiDocument, ResponseValidator>();

function judgeOf(document: OpenApiDocument): (exchange: Exchange) => ExchangeVerdict {
  const judge = createExchangeJudge(document, responseValidator(document));
  return (exchange) =>
    judge({ method: exchange.method, target: exchange.path, status: exchange.status, contentType: exchange.contentType, body: exchange.bodyText });
}

function bundledDocument(): OpenApiDocument {
  bundled ??= loadOpenApiDocument();
  return bundled;
}

/** Compiling the contract's schemas takes a few hundred milliseconds: once per document a process judges with. */
export function responseValidator(document: OpenApiDocument = bundledDocument()): ResponseValidator {
  let validator = validators.get(document);
  if (!validator) {
    validator = createResponseValidator(document);
    validators.set(document, validator);
  }
  return validator;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function checkTarget(options: RunOptions): string | undefined {
  if (uuidHex(options.conversationId) === undefined) {
    return `--conversation-id ${JSON.stringify(options.conversationId)} is not a UUID; pass the conversation's id (hyphenated, or the 32 hex digits of its directory name).`;
  }
  const manifestId = options.manifest?.conversationId;
  if (manifestId !== undefined && uuidHex(manifestId) !== uuidHex(options.conversationId)) {
    return `--conversation-id ${options.conversationId} is not the manifest's conversation (${manifestId}); leave --conversation-id out to use the manifest's.`;
  }
  return undefined;
}

/**
 * With `--changed-since`, the contract-driven checks of the changed operations, and the
 * semantic checks when an operation they are written for changed.
 */
function selectChecks(options: RunOptions, contract: SearchContract, inScope: readonly string[] | undefined): Check[] {
  const changed = (operationId: string) => inScope === undefined || inScope.includes(operationId);
  const knownChanged = Object.values(KNOWN_OPERATIONS).some(changed);
  return allChecks(contract).filter(
    (check) =>
      (operationOfCheck(check.id) === undefined ? check.audit || knownChanged : changed(operationOfCheck(check.id)!)) &&
      options.levels.includes(check.level) &&
      (!check.needsManifest || options.manifest !== undefined) &&
      (!options.only || options.only.some((prefix) => check.id.startsWith(prefix))),
  );
}

async function runSafely(check: Check, context: Parameters<Check['run']>[0]): Promise<CheckOutcome> {
  try {
    return await check.run(context);
  } catch (error) {
    // A crash is a bug of the kit, not a verdict on the server; it still fails the run so it gets seen.
    return {
      status: 'failed',
      findings: [
        {
          message: `the check crashed (a bug in the kit, please report it): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        },
      ],
    };
  }
}

/** The key never appears in a result, whatever a server echoed back. */
export function redactSecret<T>(value: T, secret: string | undefined): T {
  if (!secret || secret.length < 4) return value;
  return JSON.parse(JSON.stringify(value).replaceAll(JSON.stringify(secret).slice(1, -1), '$SESSION_API_KEY')) as T;
}
