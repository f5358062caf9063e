/**
 * The proxy's judge, on a thread of its own (judging.ts starts it): judging a page takes about
 * as long as forwarding it, so on the proxy's thread it would hold up the next request
 * (docs/contract-kit.md, "What it costs", has the figures). The
 * thread judges each exchange it is sent against the contract, keeps the session's
 * coverage, and answers every exchange with its verdict, so the proxy knows when all are in.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type OpenApiDocument, operationTable } from '../../contract';
import { createCoverageRecorder } from '../coverage';
import { createExchangeJudge } from '../exchange-judge';
import type { JudgingReply, JudgingRequest } from './judging-messages';
import { createResponseValidator } from '../schema-validator';

if (!parentPort) throw new Error('judging-worker.ts runs as a worker thread; judging.ts starts it');
const port = parentPort;
const document = workerData as OpenApiDocument;
const judge = createExchangeJudge(document, createResponseValidator(document), { judgeRequests: true });
const coverage = createCoverageRecorder(operationTable(document));

port.on('message', (request: JudgingRequest) => {
  if (request.kind === 'coverage') {
    reply({ kind: 'coverage', coverage: coverage.summary() });
    return;
  }
  const { seq, method, target, status, contentType } = request;
  const body = request.body === undefined ? undefined : Buffer.from(request.body).toString('utf8');
  const verdict = judge({ method, target, status, contentType, body });
  coverage.record(method, target, status, verdict.json);
  reply({ kind: 'verdict', seq, operationId: verdict.operationId, violations: verdict.violations });
});

function reply(message: JudgingReply): void {
  port.postMessage(message);
}
