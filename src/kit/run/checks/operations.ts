/**
 * The contract-driven layer: for every operation the document declares, whatever it is,
 * requests generated from its parameters' schemas, judged by the contract alone.
 *
 * - `operations.<operationId>.valid`: property-based (fast-check, seeded), values each
 *   parameter's schema accepts, path parameters filled from discovery; every answer must be
 *   a declared status, never a 5xx, with a declared content type and a body valid for that
 *   status, and never a validation rejection of a value the contract accepts.
 * - `operations.<operationId>.unknown`: values the contract accepts that the server is unlikely
 *   to hold (a fresh UUID for an id, a page id nobody handed out), one parameter at a time, the
 *   others as discovered; judged as the valid ones: a declared status (a 404 is fine), never a 5xx
 *   or a rejection. Discovery only ever sends what the server has; a client also asks for what it has not.
 * - `operations.<operationId>.invalid`: one request per rule a parameter's schema sets (each
 *   bound one step outside, the wrong type, a malformed format, an unknown enum member, a
 *   required parameter left out), expecting the operation's declared 4xx naming the parameter.
 * - `operations.<path>.undeclared-methods`: each method the path does not declare never gets a 5xx.
 *
 * An operation the server does not have at all (its valid request answered like an unknown
 * route, `404 {"detail":"Not Found"}`) is reported as not implemented, unless
 * `--require-implemented` asks for every operation.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { type ContractOperation, type ContractParameter, statusCovers } from '../../../contract';
import type { CheckContext } from '../context';
import { answersUnknownRoute, rejectionStatus } from '../../exchange-judge';
import type { Exchange, RequestBody } from '../../http';
import { invalidValues, validValue, valueProblem } from '../../parameter-values';
import type { SearchContract } from '../../search-contract';
import { failed, notImplemented, passed, skipped, verdict, type Check, type CheckOutcome, type Finding } from '../types';
import { exchangeOrOutcome, statusAndBody } from './support';

/** The methods the kit sends to a path that does not declare them: bodiless, to resources that do not exist, so nothing can change. */
const UNDECLARED_METHODS_TRIED = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** Share of the requests left that one operation's generated requests may use. */
const BUDGET_SHARE = 0.1;

/** The operationId a contract-driven check is about, from its id; undefined for any other check. */
export function operationOfCheck(checkId: string): string | undefined {
  return /^operations\.(.+)\.(valid|unknown|invalid|undeclared-methods)$/.exec(checkId)?.[1];
}

export function operationChecks(contract: SearchContract): Check[] {
  const checks: Check[] = [];
  for (const operation of contract.table.operations) {
    checks.push(validRequestsCheck(operation), unknownValuesCheck(operation), invalidRequestsCheck(operation));
  }
  const templates = [...new Set(contract.table.operations.map((operation) => operation.template))];
  for (const template of templates) checks.push(undeclaredMethodsCheck(contract, template));
  return checks;
}

// ---- valid requests ---------------------------------------------------------------------

function validRequestsCheck(operation: ContractOperation): Check {
  return {
    id: `operations.${operation.operationId}.valid`,
    level: 'seed',
    title: `${operation.method} ${operation.template}: requests the contract accepts get a declared status, content type and body, never a 5xx or a rejection`,
    run: (context) =>
      whenExercised(context, operation, async () => {
        const { seed, runs } = context.settings;
        const floor = context.requestsLeft() - Math.floor(context.requestsLeft() * BUDGET_SHARE);
        const findings: Finding[] = [];
        // A GET is judged once: an operation with few parameters draws the same request again and
        // again (a download takes the conversation's id alone), and sending it again tests nothing new.
        const judged = new Set<string>();
        let stoppedEarly = false;
        const property = fc.asyncProperty(requestArbitrary(context, operation), async ({ target, body }) => {
          const request = `${target}\n${body?.text ?? ''}`;
          if (judged.has(request)) return true;
          if (context.requestsLeft() <= floor) {
            stoppedEarly = true;
            return true;
          }
          const result = await context.get(target, body);
          if (!result.ok) return true;
          judged.add(request);
          const problems = judgeValid(context, operation, result.exchange);
          if (problems.length === 0) return true;
          findings.splice(
            0,
            findings.length,
            ...problems.map((message) => ({ message, expected: expectedOf(operation), exchange: result.exchange })),
          );
          return false;
        });
        const details = await fc.check(property, { seed, numRuns: runs });
        const replay = `fast-check seed ${seed}: replay with --seed ${seed} --runs ${runs}`;
        if (details.failed && findings.length > 0) return failed(findings, `${replay} (path ${details.counterexamplePath})`);
        if (details.failed) return failed([{ message: `the property threw: ${String(details.errorInstance)}` }], replay);
        if (judged.size === 0) return skipped(`no request could be sent within the request budget; ${replay}`);
        return passed(`${judged.size} distinct generated requests${stoppedEarly ? ' (stopped early at the request bound)' : ''}; ${replay}`);
      }),
  };
}

function judgeValid(context: CheckContext, operation: ContractOperation, exchange: Exchange): string[] {
  const problems = context.judge(exchange).violations;
  if (exchange.status === 400 || exchange.status === 422)
    problems.push(`a request with values the contract accepts was rejected: ${statusAndBody(exchange)}`);
  return problems.map((problem) => `${operation.operationId}: ${problem}`);
}

function expectedOf(operation: ContractOperation): string {
  return `a status ${operation.operationId} declares (${operation.statuses.join(', ')}), not 5xx, with its content type and schema`;
}

/** A path and query: path parameters from discovery where it has them, every parameter's value drawn from its schema. */
function requestArbitrary(context: CheckContext, operation: ContractOperation): fc.Arbitrary<{ target: string; body?: RequestBody }> {
  const pathValues = operation.pathParameterNames.map((name) => {
    const parameter = operation.parameters.find((candidate) => candidate.in === 'path' && candidate.name === name);
    const discovered = discoveredValues(context, name);
    return discovered.length > 0 ? fc.constantFrom(...discovered) : validValue(parameter?.schema ?? {}).map((value) => value ?? 'x');
  });
  const queryParameters = operation.parameters.filter((parameter) => parameter.in === 'query');
  const queryValues = queryParameters.map((parameter) => {
    const values = queryParameterValues(parameter);
    return parameter.required ? values : fc.option(values, { nil: undefined, freq: 2 });
  });
  return fc.tuple(fc.tuple(...pathValues), fc.tuple(...queryValues), requestBodyArbitrary(context, operation)).map(([path, query, body]) => ({
    target: targetOf(
      operation,
      path.map((value) => value ?? ''),
      queryParameters.flatMap((parameter, index) => (query[index] ?? []).map((value) => [parameter.name, value] as [string, string])),
    ),
    ...(body === undefined ? {} : { body }),
  }));
}

/**
 * A JSON body the operation's request body schema accepts. The contract's one body (the
 * batch get's list of event ids) is a list of strings: discovered ids, ids that name nothing,
 * repeated and empty lists among them. No body for an operation that takes none.
 */
function requestBodyArbitrary(context: CheckContext, operation: ContractOperation): fc.Arbitrary<RequestBody | undefined> {
  const schema = operation.requestBodySchema as { type?: unknown; items?: { type?: unknown } } | undefined;
  if (schema === undefined) return fc.constant(undefined);
  if (schema.type !== 'array' || schema.items?.type !== 'string')
    throw new Error(`${operation.operationId}: the kit sends only bodies that are lists of strings`);
  const discovered = discoveredValues(context, 'event_id');
  const item = discovered.length > 0 ? fc.oneof(fc.constantFrom(...discovered), fc.string()) : fc.string();
  return fc.array(item, { maxLength: MAX_LIST_ITEMS }).map((items) => ({ contentType: 'application/json', text: JSON.stringify(items) }));
}

/** Items an array parameter is sent with at most: enough to show a list is read as one. */
const MAX_LIST_ITEMS = 5;

/**
 * A query parameter's values: one for a scalar, several for an array, each then written as
 * `name=value` (OpenAPI's default for a query array, `form` style exploded: `ids=a&ids=b`).
 */
function queryParameterValues(parameter: ContractParameter): fc.Arbitrary<string[]> {
  const { schema } = parameter;
  if (schema.type === 'array' && schema.items) {
    const maxLength = Math.min(schema.maxItems ?? MAX_LIST_ITEMS, MAX_LIST_ITEMS);
    const minLength = Math.min(parameter.required ? 1 : 0, maxLength);
    return fc
      .array(validValue(schema.items), { minLength, maxLength })
      .map((values) => values.filter((value): value is string => value !== undefined));
  }
  return validValue(schema).map((value) => (value === undefined ? [] : [value]));
}

/** Values discovery found for a path parameter: the conversation's id, the ids of its events. */
function discoveredValues(context: CheckContext, name: string): string[] {
  if (name === 'conversation_id') return [context.conversationId];
  if (name === 'event_id') return context.data.events.slice(0, 5).flatMap((event) => (event.id === undefined ? [] : [event.id]));
  return [];
}

function targetOf(operation: ContractOperation, pathValues: readonly string[], query: readonly [string, string][]): string {
  let index = 0;
  const path = operation.template.replace(/\{[^}]+\}/g, () => encodeURIComponent(pathValues[index++] ?? ''));
  const search = query.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
  return search === '' ? path : `${path}?${search}`;
}

// ---- valid values the server does not hold ---------------------------------------------

interface UnknownCase {
  parameter: ContractParameter;
  value: string;
  target: string;
}

function unknownValuesCheck(operation: ContractOperation): Check {
  return {
    id: `operations.${operation.operationId}.unknown`,
    level: 'seed',
    title: `${operation.method} ${operation.template}: a valid id or page id the server does not hold gets a declared status, content type and body, never a 5xx or a rejection`,
    run: (context) =>
      whenExercised(context, operation, async () => {
        const cases = unknownCases(context, operation);
        if (cases.length === 0) return passed('no parameter names something the server holds');
        const findings: Finding[] = [];
        for (const unknown of cases) {
          const what = `${unknown.parameter.in} parameter ${unknown.parameter.name} ${JSON.stringify(unknown.value)} (valid, held by nobody)`;
          const sent = exchangeOrOutcome(await context.get(unknown.target), what);
          if ('outcome' in sent) return sent.outcome;
          findings.push(
            ...judgeValid(context, operation, sent.exchange).map((message) => ({
              message: `${what}: ${message}`,
              expected: expectedOf(operation),
              exchange: sent.exchange,
            })),
          );
        }
        return verdict(findings, `${cases.length} requests: ${cases.map((unknown) => `${unknown.parameter.name}=${unknown.value}`).join('; ')}`);
      }),
  };
}

/** A parameter that names something a server holds: every path parameter, and query parameters named as ids or holding UUIDs. */
function namesAResource(parameter: ContractParameter): boolean {
  if (parameter.in === 'path') return true;
  if (parameter.in !== 'query') return false;
  const schema = parameter.schema.type === 'array' && parameter.schema.items ? parameter.schema.items : parameter.schema;
  return /(^|_)ids?$/.test(parameter.name) || schema.format === 'uuid';
}

/** A value the parameter's schema accepts and no server hands out: a fresh UUID where the schema wants one, else a name made of one. */
function unheldValue(parameter: ContractParameter): string | undefined {
  const schema = parameter.schema.type === 'array' && parameter.schema.items ? parameter.schema.items : parameter.schema;
  const candidates = schema.format === 'uuid' ? [randomUUID()] : [`kit-unknown-${randomUUID()}`, randomUUID()];
  return candidates.find((candidate) => valueProblem(schema, candidate) === undefined);
}

function unknownCases(context: CheckContext, operation: ContractOperation): UnknownCase[] {
  const validPath = operation.pathParameterNames.map((name) => discoveredValues(context, name)[0] ?? 'x');
  const requiredQuery = operation.parameters
    .filter((parameter) => parameter.in === 'query' && parameter.required)
    .map((parameter) => [parameter.name, String(parameter.schema.default ?? firstValid(parameter))] as [string, string]);
  const cases: UnknownCase[] = [];
  for (const parameter of operation.parameters.filter(namesAResource)) {
    const value = unheldValue(parameter);
    if (value === undefined) continue;
    if (parameter.in === 'path') {
      const at = operation.pathParameterNames.indexOf(parameter.name);
      const path = validPath.map((known, index) => (index === at ? value : known));
      cases.push({ parameter, value, target: targetOf(operation, path, requiredQuery) });
    } else {
      const others = requiredQuery.filter(([name]) => name !== parameter.name);
      cases.push({ parameter, value, target: targetOf(operation, validPath, [...others, [parameter.name, value]]) });
    }
  }
  return cases;
}

// ---- invalid requests -------------------------------------------------------------------

interface InvalidCase {
  parameter: ContractParameter;
  why: string;
  target: string;
}

function invalidRequestsCheck(operation: ContractOperation): Check {
  return {
    id: `operations.${operation.operationId}.invalid`,
    level: 'seed',
    title: `${operation.method} ${operation.template}: each value the contract rejects gets a declared 4xx naming the parameter, never a 5xx`,
    run: (context) =>
      whenExercised(context, operation, async () => {
        const cases = invalidCases(context, operation);
        if (cases.length === 0) return passed('no parameter has a rule a request can break');
        const rejection = rejectionStatus(operation);
        if (rejection === undefined) return skipped(`${operation.operationId} declares no 4xx to answer an invalid request with`);
        const findings: Finding[] = [];
        for (const invalid of cases) {
          const sent = exchangeOrOutcome(await context.get(invalid.target), `${invalid.parameter.name} ${invalid.why}`);
          if ('outcome' in sent) return sent.outcome;
          findings.push(...judgeInvalid(context, operation, rejection, invalid, sent.exchange));
        }
        return verdict(
          findings,
          `${cases.length} invalid requests: ${cases.map((invalid) => `${invalid.parameter.name} ${invalid.why}`).join('; ')}`,
        );
      }),
  };
}

function invalidCases(context: CheckContext, operation: ContractOperation): InvalidCase[] {
  const validPath = operation.pathParameterNames.map((name) => discoveredValues(context, name)[0] ?? 'x');
  const requiredQuery = operation.parameters
    .filter((parameter) => parameter.in === 'query' && parameter.required)
    .map((parameter) => [parameter.name, String(parameter.schema.default ?? firstValid(parameter))] as [string, string]);
  const cases: InvalidCase[] = [];
  for (const parameter of operation.parameters) {
    if (parameter.in === 'path') {
      const at = operation.pathParameterNames.indexOf(parameter.name);
      for (const invalid of invalidValues(parameter.schema)) {
        const path = validPath.map((value, index) => (index === at ? invalid.value : value));
        cases.push({ parameter, why: `${JSON.stringify(invalid.value)} (${invalid.why})`, target: targetOf(operation, path, requiredQuery) });
      }
    } else if (parameter.in === 'query') {
      const others = requiredQuery.filter(([name]) => name !== parameter.name);
      for (const invalid of invalidValues(parameter.schema)) {
        cases.push({
          parameter,
          why: `${JSON.stringify(invalid.value)} (${invalid.why})`,
          target: targetOf(operation, validPath, [...others, [parameter.name, invalid.value]]),
        });
      }
      if (parameter.required) cases.push({ parameter, why: 'left out (it is required)', target: targetOf(operation, validPath, others) });
    }
  }
  return cases;
}

function firstValid(parameter: ContractParameter): string {
  return fc.sample(validValue(parameter.schema), { numRuns: 1, seed: 1 })[0] ?? '';
}

function judgeInvalid(context: CheckContext, operation: ContractOperation, rejection: string, invalid: InvalidCase, exchange: Exchange): Finding[] {
  const expected = `${rejection} (declared for ${operation.operationId}) whose body names ${JSON.stringify(invalid.parameter.name)}`;
  const what = `${invalid.parameter.in} parameter ${invalid.parameter.name} ${invalid.why}`;
  const findings: Finding[] = context.judge(exchange).violations.map((problem) => ({ message: `${what}: ${problem}`, expected, exchange }));
  if (exchange.status >= 500) return findings;
  if (!statusCovers(rejection, exchange.status)) findings.push({ message: `${what}: answered ${statusAndBody(exchange)}`, expected, exchange });
  else if (!exchange.bodyText.includes(JSON.stringify(invalid.parameter.name)))
    findings.push({ message: `${what}: the ${exchange.status} body does not name the parameter: ${statusAndBody(exchange)}`, expected, exchange });
  return findings;
}

// ---- methods the contract does not declare ------------------------------------------------

function undeclaredMethodsCheck(contract: SearchContract, template: string): Check {
  const declared = contract.table.operations.filter((operation) => operation.template === template);
  const tried = UNDECLARED_METHODS_TRIED.filter((method) => !declared.some((operation) => operation.method === method));
  return {
    id: `operations.${declared[0]!.operationId}.undeclared-methods`,
    level: 'seed',
    title: `${template}: ${tried.join(', ')} (not declared) never get a 5xx`,
    async run(context) {
      if (!declared.some((operation) => context.operationsInScope.has(operation.operationId)))
        return skipped('not among the operations --changed-since names');
      // Resources that do not exist: a server that has such a method anyway changes nothing.
      const path = template.replace(/\{[^}]+\}/g, () => randomUUID());
      const findings: Finding[] = [];
      for (const method of tried) {
        const sent = exchangeOrOutcome(await context.request(method, path), `${method} ${template}`);
        if ('outcome' in sent) return sent.outcome;
        if (sent.exchange.status >= 500)
          findings.push({
            message: `${method} ${template}, a method the contract does not declare there, answered ${statusAndBody(sent.exchange)}`,
            expected: 'a 4xx (405 Method Not Allowed or 404), never a 5xx',
            exchange: sent.exchange,
          });
      }
      return verdict(findings, `sent ${tried.join(', ')}`);
    },
  };
}

// ---- whether to exercise an operation ------------------------------------------------------

const probes = new WeakMap<CheckContext, Map<string, Promise<CheckOutcome | undefined>>>();

/**
 * Runs `exercise` unless the operation is out of scope, changes state (the kit sends GETs to
 * declared operations only), or the server does not have it: one valid request per operation
 * and run decides, shared by its checks.
 */
async function whenExercised(context: CheckContext, operation: ContractOperation, exercise: () => Promise<CheckOutcome>): Promise<CheckOutcome> {
  if (!context.operationsInScope.has(operation.operationId)) return skipped('not among the operations --changed-since names');
  if (operation.method !== 'GET' && operation.method !== 'HEAD')
    return skipped(`${operation.method} is not sent: the kit never changes a server (the proxy judges such traffic)`);
  const perContext = probes.get(context) ?? new Map<string, Promise<CheckOutcome | undefined>>();
  probes.set(context, perContext);
  const probe = perContext.get(operation.operationId) ?? probeOperation(context, operation);
  perContext.set(operation.operationId, probe);
  return (await probe) ?? exercise();
}

/** The probe's request with its first path parameter that has a value the contract rejects set to it; undefined when none has. */
function rejectedPathTarget(operation: ContractOperation, path: readonly string[], query: readonly [string, string][]): string | undefined {
  for (const [index, name] of operation.pathParameterNames.entries()) {
    const parameter = operation.parameters.find((candidate) => candidate.in === 'path' && candidate.name === name);
    const invalid = parameter ? invalidValues(parameter.schema)[0] : undefined;
    if (invalid !== undefined)
      return targetOf(
        operation,
        path.map((value, at) => (at === index ? invalid.value : value)),
        query,
      );
  }
  return undefined;
}

async function probeOperation(context: CheckContext, operation: ContractOperation): Promise<CheckOutcome | undefined> {
  const path = operation.pathParameterNames.map((name) => discoveredValues(context, name)[0] ?? 'x');
  const required = operation.parameters
    .filter((parameter) => parameter.in === 'query' && parameter.required)
    .map((parameter) => [parameter.name, String(parameter.schema.default ?? firstValid(parameter))] as [string, string]);
  const sent = exchangeOrOutcome(await context.get(targetOf(operation, path, required)), `probing ${operation.operationId}`);
  if ('outcome' in sent) return sent.outcome;
  const { exchange } = sent;
  if (!answersUnknownRoute(exchange)) return undefined;
  // A route the server has may answer a resource it lacks with the same bare 404 (the catalog's
  // get does, as the reference's does). A path value the contract rejects tells them apart: the
  // route answers it with a 4xx of its own, an unknown route with the same 404.
  const rejected = rejectedPathTarget(operation, path, required);
  if (rejected !== undefined) {
    const probe = exchangeOrOutcome(await context.get(rejected), `probing ${operation.operationId} with a path value it rejects`);
    if ('outcome' in probe) return probe.outcome;
    if (!answersUnknownRoute(probe.exchange)) return undefined;
  }
  const message = `the server has no ${operation.method} ${operation.template} (${operation.operationId}): a valid request answered ${statusAndBody(exchange)}, the answer of an unknown route`;
  if (context.requireImplemented)
    return failed([{ message, expected: 'every operation of the contract implemented (--require-implemented)', exchange }]);
  return notImplemented(message);
}
