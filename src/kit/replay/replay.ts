/**
 * `--replay FILE.har --base-url URL`: each recorded request that the contract declares is sent
 * again (method, path and query; the session key from the command line, never one from the
 * file) to another server, and its answer judged twice: by the contract, as the proxy judges,
 * and against the recorded answer (the status; a JSON body as values, sets in any order). A
 * session a real client had with one implementation becomes a regression test for another.
 * Headers are not compared: dates, servers and lengths belong to each server.
 */
import { type OpenApiDocument, operationTable } from '../../contract';
import { createExchangeJudge } from '../exchange-judge';
import { readHar, type ReplayEntry } from '../har';
import { createTransport, type Exchange, parseJson } from '../http';
import { firstDifference, setValuedProperties } from '../run/compare';
import { type CheckResult, type RunResult, toResult } from '../run/result';
import { redactSecret, responseValidator } from '../run/run';
import { count, type Finding } from '../run/types';

export interface ReplayOptions {
  file: string;
  baseUrl: string;
  document: OpenApiDocument;
  sessionApiKey?: string;
  timeoutMs: number;
  allow?: readonly { id: string; reason: string }[];
  fetch?: typeof fetch;
}

/** The check id of one entry: its number in the file, so `--allow` can name it. */
export function replayCheckId(entry: Pick<ReplayEntry, 'index'>): string {
  return `replay.entry-${entry.index}`;
}

export async function runReplay(options: ReplayOptions): Promise<RunResult> {
  const started = Date.now();
  const result: RunResult = {
    target: { baseUrl: options.baseUrl.replace(/\/+$/, ''), conversationId: '', replay: options.file },
    seed: 0,
    runs: 0,
    levels: [],
    startedAt: new Date(started).toISOString(),
    durationMs: 0,
    requests: { sent: 0, max: 0 },
    outcome: 'passed',
    suites: [],
    notes: [],
  };
  const finish = () => {
    result.durationMs = Date.now() - started;
    return redactSecret(result, options.sessionApiKey);
  };
  const read = readHar(options.file);
  if (!read.ok) {
    result.outcome = 'cannot-run';
    result.problem = read.message;
    return finish();
  }
  const table = operationTable(options.document);
  const skippedEntries = [...read.problems];
  const declared: { entry: ReplayEntry; operationId: string }[] = [];
  for (const entry of read.entries) {
    const match = table.match(entry.method, new URL(entry.target, 'http://replay.invalid').pathname);
    if (match) declared.push({ entry, operationId: match.operation.operationId });
    else skippedEntries.push(`entry ${entry.index} (${entry.method} ${entry.target}): not a request this contract declares; skipped`);
  }
  result.notes.push(...skippedEntries);
  if (declared.length === 0) {
    result.outcome = 'cannot-run';
    result.problem = `nothing to replay in ${options.file}: ${read.entries.length === 0 && read.problems.length === 0 ? 'it has no entries' : `none of its ${count(read.entries.length + read.problems.length, 'entry')} is a request this contract declares`}. Record one with \`proxy --record FILE.har\` in front of a server the client talks to.`;
    return finish();
  }

  const transport = createTransport({
    baseUrl: options.baseUrl,
    timeoutMs: options.timeoutMs,
    maxRequests: declared.length,
    ...(options.sessionApiKey !== undefined ? { sessionApiKey: options.sessionApiKey } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  result.requests.max = declared.length;
  const judge = createExchangeJudge(options.document, responseValidator(options.document));
  const setValued = setValuedProperties(options.document);
  const allow = new Map((options.allow ?? []).map((entry) => [entry.id, entry.reason]));
  const withKey = options.sessionApiKey !== undefined;
  const checks: CheckResult[] = [];
  for (const { entry, operationId } of declared) {
    const id = replayCheckId(entry);
    transport.setCheck(id);
    const sentAt = Date.now();
    const sent = entry.method === 'GET' ? await transport.get(entry.target) : await transport.request(entry.method, entry.target);
    const title = `${entry.method} ${entry.target} (${operationId}) answers as recorded (${entry.status}) and as the contract says`;
    if (!sent.ok && checks.length === 0) {
      // Nothing answered the first request: the server, not the recording, is the problem.
      result.outcome = 'cannot-run';
      result.problem = `Cannot reach the server (${sent.failure.message}) at ${sent.failure.url}. Is it running? Check --base-url.`;
      return finish();
    }
    if (!sent.ok) {
      checks.push(
        toResult(
          { id, level: 'seed', title },
          { status: 'failed', findings: [{ message: `no answer: ${sent.failure.message}` }] },
          Date.now() - sentAt,
          1,
          allow,
          withKey,
        ),
      );
      continue;
    }
    const findings = judgeReplayed(entry, sent.exchange, judge, setValued);
    checks.push(
      toResult(
        { id, level: 'seed', title },
        findings.length === 0 ? { status: 'passed' } : { status: 'failed', findings },
        Date.now() - sentAt,
        1,
        allow,
        withKey,
      ),
    );
  }
  result.requests.sent = transport.sent;
  result.suites.push({ name: 'replay', checks: checks.map((check) => ({ ...check, suite: 'replay' as const })) });
  result.outcome = checks.some((check) => check.status === 'failed') ? 'failed' : 'passed';
  return finish();
}

/** What is wrong with one replayed answer: by the contract, then against the recorded one. */
function judgeReplayed(
  entry: ReplayEntry,
  answer: Exchange,
  judge: ReturnType<typeof createExchangeJudge>,
  setValued: ReadonlySet<string>,
): Finding[] {
  const findings: Finding[] = judge({
    method: entry.method,
    target: entry.target,
    status: answer.status,
    contentType: answer.contentType,
    body: answer.bodyText,
  }).violations.map((violation) => ({ message: `contract: ${violation}`, expected: 'an answer the contract allows', exchange: answer }));
  if (answer.status !== entry.status) {
    findings.push({
      message: `status ${answer.status}, recorded ${entry.status}`,
      expected: `the recorded status ${entry.status}`,
      exchange: answer,
    });
    return findings;
  }
  const recorded = entry.body === undefined ? undefined : parseJson(entry.body);
  if (recorded?.ok && answer.json.ok) {
    const where = firstDifference(recorded.value, answer.json.value, '$', setValued);
    if (where !== undefined)
      findings.push({
        message: `body differs from the recorded one at ${where} (recorded vs now)`,
        expected: 'the recorded body, as JSON values',
        exchange: answer,
      });
  } else if (recorded?.ok && !answer.json.ok) {
    findings.push({
      message: `the recorded body is JSON, this one is not: ${answer.json.error}`,
      expected: 'the recorded body, as JSON values',
      exchange: answer,
    });
  }
  return findings;
}
