/**
 * The `otlp` and `atif` exports over HTTP on real files: the OTLP/JSON document carries both
 * attribute conventions on every span, its times stay within the conversation, its secrets
 * are masked, and what our protobuf encoder writes of it decodes with the official
 * `opentelemetry-proto` to the same spans; the ATIF trajectory passes Harbor's own validator.
 * Bad input: a conversation without responses or tool calls is the root alone; a collector
 * that refuses or is not there is reported with its status, and retried a bounded number of times.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { findFreePort } from '../../dev/process/free-port';
import { type PythonEnvironment, pythonEnvironment } from '../../dev/python/environment';
import { HARBOR, PHOENIX } from '../../dev/python/toolsets';
import type { Event, EventOfKind } from '../../src/contract';
import { TRACE_HELD_AT_ONCE } from '../../src/export/trace/event-parts';
import { exportTraceServiceRequest } from '../../src/export/trace/otlp-protobuf';
import { PushError, pushConversationTrace } from '../../src/export/trace/otlp-push';
import type { OtlpSpan, OtlpTraceDocument } from '../../src/export/trace/otlp-trace';
import { runExportCommand } from '../../src/export/trace/push-command';
import { action, agentError, completionLog, conversationId, eventId, message, observation } from '../support/events';
import { writeConversationState } from '../support/conversation-state';
import { type LiveServer, startLiveServer } from '../support/live-server';

const RECORDED = '1058b2ad0e0c4f2e8a5b3c7d9e1f2a3b';
const RECORDED_ID = '1058b2ad-0e0c-4f2e-8a5b-3c7d9e1f2a3b';
const SAMPLE = path.resolve(__dirname, '../../sample-data/conversations', RECORDED);
const SECRET = 'sk-proj-abcdefghijklmnopqrstuvwxyz012345';
const QUIET = conversationId(1);
const SECRETIVE = conversationId(2);
const LATE_ANSWER = conversationId(5);
const MANY_CALLS = conversationId(6);
/** Conversations whose tool output is longer than a trace carries: under a mebibyte stored, and over it (read in pieces). */
const LONG_OUTPUT = conversationId(3);
const VERY_LONG_OUTPUT = conversationId(4);
/** A secret of the conversations' saved state (test/support/conversation-state.ts) that no credential shape matches. */
const KNOWN_SECRET = 'aws-secret-0001';
/** Escaped in JSON, two-byte, four-byte (a surrogate pair) and known-secret characters, so that any cut falls among them. */
const LONG_OUTPUT_UNIT = `é "quoted"\n😀\t${KNOWN_SECRET} `;

function longOutputConversation(characters: number) {
  const call = action({ id: eventId(1), timestamp: '2026-06-01T10:00:01' }, 'Print it all.');
  const output = LONG_OUTPUT_UNIT.repeat(Math.ceil(characters / LONG_OUTPUT_UNIT.length));
  const printed: EventOfKind<'ObservationEvent'> = {
    ...observation({ id: eventId(2), timestamp: '2026-06-01T10:00:02' }, output),
    tool_call_id: call.tool_call_id,
    action_id: call.id!,
  };
  return { output, events: [call, printed, message({ id: eventId(3), timestamp: '2026-06-01T10:00:03', source: 'agent' }, { text: ['Printed.'] })] };
}
/** A call answered only after the steps the trace holds at once: its result comes last. */
function lateAnswerConversation() {
  let n = 0;
  const stamp = () => ({
    id: eventId(++n),
    timestamp: `2026-06-01T10:${String(Math.floor(n / 60)).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}`,
  });
  const late = action(stamp(), 'Start the long job.');
  const events: Event[] = [late];
  for (let step = 0; step < TRACE_HELD_AT_ONCE + 6; step++) {
    const call = action(stamp(), `Step ${step}.`);
    events.push(call, { ...observation(stamp(), `Result ${step}.`), tool_call_id: call.tool_call_id, action_id: call.id! });
  }
  events.push({ ...observation(stamp(), 'The long job is done.'), tool_call_id: late.tool_call_id, action_id: late.id! });
  return events;
}

/** One model response with more tool calls than the trace gathers into one response, all answered after the last. */
function manyCallsConversation() {
  const calls = Array.from({ length: TRACE_HELD_AT_ONCE + 6 }, (_, index) => {
    const call = action({ id: eventId(index + 1), timestamp: '2026-06-01T10:00:01' }, `Call ${index}.`);
    return {
      ...call,
      llm_response_id: 'chatcmpl-parallel',
      tool_call_id: `call_parallel_${index}`,
      tool_call: { ...call.tool_call, id: `call_parallel_${index}` },
    };
  });
  const results = calls.map((call, index) => ({
    ...observation({ id: eventId(1000 + index), timestamp: '2026-06-01T10:00:02' }, `Answer ${index}.`),
    tool_call_id: call.tool_call_id,
    action_id: call.id!,
  }));
  return [...calls, ...results];
}

const longOutputs = { [LONG_OUTPUT]: longOutputConversation(400_000), [VERY_LONG_OUTPUT]: longOutputConversation(3_000_000) };

function secretiveConversation() {
  const call = action({ id: eventId(2), timestamp: '2026-06-01T10:00:02' }, 'I will print the key.');
  const bad = action({ id: eventId(4), timestamp: '2026-06-01T10:00:04' }, 'Now with broken arguments.');
  const printed: EventOfKind<'ObservationEvent'> = {
    ...observation({ id: eventId(3), timestamp: '2026-06-01T10:00:03' }, `OPENAI_API_KEY=${SECRET}`),
    tool_call_id: call.tool_call_id,
    action_id: call.id!,
  };
  return [
    message({ id: eventId(1), timestamp: '2026-06-01T10:00:01', source: 'user' }, { text: [`Use ${SECRET} to call the API.`] }),
    call,
    printed,
    { ...bad, tool_call: { ...bad.tool_call, arguments: '{"thought": "unterminated' } },
    {
      ...agentError({ id: eventId(5), timestamp: '2026-06-01T10:00:05' }, 'Arguments are not JSON.'),
      tool_call_id: bad.tool_call_id,
      tool_name: 'think',
    },
    message({ id: eventId(6), timestamp: '2026-06-01T10:00:06', source: 'agent' }, { text: ['Done.'] }),
  ];
}

/** A conversation whose one model response has a completion log larger than an export reads whole, holding a known secret. */
const LARGE_LOG = conversationId(7);
const LARGE_LOG_CALL = action({ id: eventId(3), timestamp: '2026-06-01T10:00:03' }, 'Read the log.');

function largeLogConversation(): Event[] {
  return [
    message({ id: eventId(1), timestamp: '2026-06-01T10:00:01', source: 'user' }, { text: ['Summarise the log.'] }),
    // The SDK logs a completion when its response arrives, before the events made of it.
    completionLog(
      { id: eventId(2), timestamp: '2026-06-01T10:00:02' },
      LARGE_LOG_CALL.llm_response_id!,
      { prompt_tokens: 1234, completion_tokens: 56 },
      `${SECRET} ${'é log line\n'.repeat(300_000)}`,
    ),
    LARGE_LOG_CALL,
    observation({ id: eventId(4), timestamp: '2026-06-01T10:00:04' }, 'Logged.'),
  ];
}

let server: LiveServer;
let scratch: string;

beforeAll(async () => {
  server = await startLiveServer([
    { id: QUIET, events: [message({ id: eventId(1), timestamp: '2026-06-01T09:00:00.5', source: 'user' }, { text: ['Hello?'] })] },
    { id: SECRETIVE, events: secretiveConversation() },
    { id: LARGE_LOG, events: largeLogConversation() },
  ]);
  cpSync(SAMPLE, path.join(server.root, RECORDED), { recursive: true });
  scratch = mkdtempSync(path.join(os.tmpdir(), 'trace-export-'));
});

afterAll(async () => {
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function exported(id: string, format: 'otlp' | 'atif'): Promise<{ status: number; contentType: string | null; body: unknown }> {
  const response = await fetch(`${server.url}/api/stored-conversations/${id}/export?format=${format}`);
  return { status: response.status, contentType: response.headers.get('content-type'), body: JSON.parse(await response.text()) };
}

function spansOf(document: unknown): OtlpSpan[] {
  return (document as OtlpTraceDocument).resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
}

function attributesOf(span: OtlpSpan): Record<string, unknown> {
  return Object.fromEntries(
    span.attributes.map(({ key, value }) => [key, value.stringValue ?? value.intValue ?? value.doubleValue ?? value.boolValue]),
  );
}

describe('otlp', () => {
  test("every span carries the GenAI and the OpenInference attributes, within the conversation's time", async () => {
    const { status, contentType, body } = await exported(RECORDED_ID, 'otlp');
    expect([status, contentType]).toEqual([200, 'application/json']);
    const spans = spansOf(body);
    const root = spans.find((span) => span.parentSpanId === undefined)!;
    const kinds: Record<string, string> = { invoke_agent: 'AGENT', chat: 'LLM', execute_tool: 'TOOL' };
    for (const span of spans) {
      const attributes = attributesOf(span);
      expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
      const operation = String(attributes['gen_ai.operation.name']);
      expect({
        operation,
        kind: attributes['openinference.span.kind'],
        conversation: attributes['gen_ai.conversation.id'],
        session: attributes['session.id'],
      }).toEqual({
        operation,
        kind: kinds[operation],
        conversation: RECORDED_ID,
        session: RECORDED_ID,
      });
      expect(BigInt(span.startTimeUnixNano) <= BigInt(span.endTimeUnixNano)).toBe(true);
      expect(BigInt(span.startTimeUnixNano) >= BigInt(root.startTimeUnixNano)).toBe(true);
      expect(BigInt(span.endTimeUnixNano) <= BigInt(root.endTimeUnixNano)).toBe(true);
      if (operation === 'execute_tool') {
        expect(attributes['gen_ai.tool.name']).toBe(attributes['tool.name']);
        expect(typeof attributes['gen_ai.tool.call.id']).toBe('string');
        expect(typeof attributes['input.value']).toBe('string');
        expect(typeof attributes['output.value']).toBe('string');
      }
      if (operation === 'chat') {
        expect(attributes['gen_ai.usage.input_tokens']).toBe(attributes['llm.token_count.prompt']);
        expect(attributes['gen_ai.usage.output_tokens']).toBe(attributes['llm.token_count.completion']);
        expect(typeof attributes['gen_ai.request.model']).toBe('string');
      }
    }
    // Read as the search reads naive timestamps: the first and last events' times.
    expect([root.startTimeUnixNano, root.endTimeUnixNano]).toEqual([
      String(BigInt(Date.parse('2026-11-25T15:23:01.637')) * 1_000_000n + 655_000n),
      String(BigInt(Date.parse('2026-11-25T15:23:04.543')) * 1_000_000n + 248_000n),
    ]);
  });

  test('what the protobuf encoder writes decodes with opentelemetry-proto to the same spans', async () => {
    const environment = await pythonEnvironment(PHOENIX);
    const { body } = await exported(RECORDED_ID, 'otlp');
    const document = body as OtlpTraceDocument;
    const resource = document.resourceSpans[0]!;
    const scope = resource.scopeSpans[0]!;
    const file = path.join(scratch, 'request.bin');
    writeFileSync(file, exportTraceServiceRequest(resource.resource as { attributes: [] }, scope.scope, scope.spans));
    const decoded = JSON.parse(execFileSync(environment.python, ['-c', DECODE, file], { encoding: 'utf8' })) as OtlpTraceDocument;
    expect(decoded).toEqual(JSON.parse(JSON.stringify(document)));
  });

  test('secrets are masked, unparseable arguments kept whole, a failed call is ERROR', async () => {
    const { body } = await exported(SECRETIVE, 'otlp');
    const text = JSON.stringify(body);
    expect(text).not.toContain(SECRET);
    const tools = spansOf(body).filter((span) => span.name.startsWith('execute_tool'));
    expect(tools.map((span) => [attributesOf(span)['input.value'], span.status.code])).toEqual([
      ['{"thought":"I will print the key."}', 0],
      ['{"raw":"{\\"thought\\": \\"unterminated"}', 2],
    ]);
  });

  test('a conversation without model responses or tool calls is the root alone', async () => {
    const { status, body } = await exported(QUIET, 'otlp');
    expect(status).toBe(200);
    const spans = spansOf(body);
    expect(spans.map((span) => [span.name, span.parentSpanId, span.startTimeUnixNano === span.endTimeUnixNano])).toEqual([
      ['invoke_agent OpenHands', undefined, true],
    ]);
    expect(attributesOf(spans[0]!)['input.value']).toBe('Hello?');
  });
});

test.each(['otlp', 'atif'] as const)(
  '%s: a completion log too large to read whole still gives its response its usage, and no secret',
  async (format) => {
    const { status, body } = await exported(LARGE_LOG, format);
    expect(status).toBe(200);
    const text = JSON.stringify(body);
    expect(text.includes(SECRET)).toBe(false);
    if (format === 'otlp') {
      const chat = spansOf(body).find((span) => attributesOf(span)['gen_ai.response.id'] === LARGE_LOG_CALL.llm_response_id)!;
      expect([attributesOf(chat)['gen_ai.usage.input_tokens'], attributesOf(chat)['gen_ai.usage.output_tokens']]).toEqual(['1234', '56']);
    } else {
      const steps = (body as { steps: { source: string; metrics?: { prompt_tokens?: number; completion_tokens?: number } }[] }).steps;
      expect(steps.find((step) => step.source === 'agent')?.metrics).toMatchObject({ prompt_tokens: 1234, completion_tokens: 56 });
    }
  },
);

describe('what a trace holds at once is bounded', () => {
  let longServer: LiveServer;
  beforeAll(async () => {
    longServer = await startLiveServer([
      ...Object.entries(longOutputs).map(([id, { events }]) => ({ id, events })),
      { id: LATE_ANSWER, events: lateAnswerConversation() },
      { id: MANY_CALLS, events: manyCallsConversation() },
    ]);
    for (const id of Object.keys(longOutputs))
      writeConversationState(longServer.root, id, { createdAt: '2026-06-01T10:00:00', updatedAt: '2026-06-01T10:00:03' });
  });
  afterAll(() => longServer?.stop());

  test.each([
    ['stored under a mebibyte', LONG_OUTPUT],
    ['stored over a mebibyte, which is read in pieces', VERY_LONG_OUTPUT],
  ])(
    'a tool output longer than a trace carries, %s, is cut with a notice of what is left out, the known secret masked up to the cut',
    async (_name, id) => {
      const { output } = longOutputs[id]!;
      const response = await fetch(`${longServer.url}/api/stored-conversations/${id}/export?format=otlp`);
      const body: unknown = await response.json();
      const tool = spansOf(body).find((span) => span.name.startsWith('execute_tool'))!;
      const carried = String(attributesOf(tool)['output.value']);
      const [, head, omitted] = /^([\s\S]*)\n\[(\d+) more characters not carried: the JSON lines export has this event whole\]$/.exec(carried) ?? [];
      // What a trace carries, less what masking took out of the head it was cut from.
      expect(head!.length).toBeLessThan(256 * 1024);
      expect(head!.length).toBeGreaterThan(200 * 1024);
      // Every occurrence is masked: none is left whole, and none is left in part where the text is cut.
      const fullyMasked = output.replaceAll(KNOWN_SECRET, '**********');
      expect(fullyMasked.startsWith(head!)).toBe(true);
      expect(head!.replaceAll('**********', '')).not.toContain(KNOWN_SECRET.slice(0, 4));
      expect(head!.endsWith('\ud83d')).toBe(false);
      // What is left out is counted in characters, between the stored text's and the masked text's.
      expect(head!.length + Number(omitted)).toBeGreaterThanOrEqual(fullyMasked.length);
      expect(head!.length + Number(omitted)).toBeLessThanOrEqual(output.length);
      expect(JSON.stringify(spansOf(body))).toContain('Printed.');
    },
  );

  async function exportedFrom(from: LiveServer, id: string, format: 'otlp' | 'atif'): Promise<unknown> {
    const response = await fetch(`${from.url}/api/stored-conversations/${id}/export?format=${format}`);
    expect(response.status).toBe(200);
    return response.json();
  }

  type Trajectory = {
    steps: { step_id: number; tool_calls?: { tool_call_id: string }[]; observation?: { results: { source_call_id: string; content: string }[] } }[];
  };

  test('a call answered only after more steps than a trajectory holds lets the steps before its answer go, without it', async () => {
    const { steps } = (await exportedFrom(longServer, LATE_ANSWER, 'atif')) as Trajectory;
    expect(steps.map((step) => step.step_id)).toEqual(steps.map((_, index) => index + 1));
    expect(steps[0]!.tool_calls).toHaveLength(1);
    expect(steps[0]!.observation).toBeUndefined();
    for (const step of steps.slice(1))
      expect(step.observation?.results.map((result) => result.source_call_id)).toEqual([step.tool_calls![0]!.tool_call_id]);
    // The trace holds one open call here, so it keeps the call until its answer.
    const spans = spansOf(await exportedFrom(longServer, LATE_ANSWER, 'otlp'));
    const outputs = spans.filter((span) => span.name.startsWith('execute_tool')).map((span) => attributesOf(span)['output.value']);
    expect(outputs).toContain('The long job is done.');
    expect(outputs).toHaveLength(TRACE_HELD_AT_ONCE + 7);
  });

  test('a response with more tool calls than a trace holds open is split, and every call has its span', async () => {
    const { steps } = (await exportedFrom(longServer, MANY_CALLS, 'atif')) as Trajectory;
    // Its calls in steps of at most the bound, each call's answer in the step of the call.
    expect(steps.map((step) => step.tool_calls?.length)).toEqual([TRACE_HELD_AT_ONCE, 6]);
    for (const step of steps)
      expect(step.observation?.results.map((result) => result.source_call_id)).toEqual(step.tool_calls!.map((call) => call.tool_call_id));
    const spans = spansOf(await exportedFrom(longServer, MANY_CALLS, 'otlp'));
    const tools = spans.filter((span) => span.name.startsWith('execute_tool')).map((span) => attributesOf(span));
    expect(tools).toHaveLength(TRACE_HELD_AT_ONCE + 6);
    // Past the bound the oldest open calls are given out without their answers, which come after the last call.
    const unanswered = tools.filter((attributes) => attributes['output.value'] === 'No result was recorded.');
    expect(unanswered.map((attributes) => attributes['gen_ai.tool.call.id'])).toEqual(
      Array.from({ length: 6 }, (_, index) => `call_parallel_${index}`),
    );
    const chats = spans.filter((span) => span.name.startsWith('chat'));
    expect(chats).toHaveLength(1);
    expect(Object.keys(attributesOf(chats[0]!)).filter((key) => key.endsWith('tool_call.function.name'))).toHaveLength(TRACE_HELD_AT_ONCE);
  });
});

describe('atif', () => {
  let harbor: PythonEnvironment;
  beforeAll(async () => {
    harbor = await pythonEnvironment(HARBOR);
  });

  function validate(trajectory: unknown): string {
    const file = path.join(scratch, `trajectory-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(trajectory));
    try {
      return execFileSync(harbor.python, ['-m', 'harbor.utils.trajectory_validator', file], { encoding: 'utf8', stdio: 'pipe' }).trim();
    } catch (error) {
      return String((error as { stderr?: string }).stderr);
    }
  }

  test.each([
    ['the recorded conversation', RECORDED_ID],
    ['a conversation with secrets and unparseable arguments', SECRETIVE],
    ['a conversation of one user message', QUIET],
  ])("%s passes Harbor's validator", async (_name, id) => {
    const { status, body } = await exported(id, 'atif');
    expect(status).toBe(200);
    expect(validate(body)).toMatch(/^✓ Trajectory is valid/);
  });

  test('steps from 1, user steps, tool calls with object arguments and results naming their call, metrics where recorded', async () => {
    const { body } = await exported(SECRETIVE, 'atif');
    expect(JSON.stringify(body)).not.toContain(SECRET);
    const trajectory = body as { session_id: string; steps: Record<string, unknown>[]; final_metrics: Record<string, unknown> };
    expect(trajectory.session_id).toBe(SECRETIVE);
    expect(trajectory.steps.map((step) => [step.step_id, step.source, step.tool_calls, step.observation])).toEqual([
      [1, 'user', undefined, undefined],
      [
        2,
        'agent',
        [{ tool_call_id: 'call_000002', function_name: 'think', arguments: { thought: 'I will print the key.' } }],
        { results: [{ source_call_id: 'call_000002', content: 'OPENAI_API_KEY=**********' }] },
      ],
      [
        3,
        'agent',
        [{ tool_call_id: 'call_000004', function_name: 'think', arguments: { raw: '{"thought": "unterminated' } }],
        { results: [{ source_call_id: 'call_000004', content: 'Arguments are not JSON.' }] },
      ],
      [4, 'agent', undefined, undefined],
    ]);
    const recorded = (await exported(RECORDED_ID, 'atif')).body as typeof trajectory;
    expect(recorded.steps.filter((step) => step.source === 'agent' && step.metrics === undefined)).toEqual([]);
    expect(recorded.final_metrics).toEqual({
      total_steps: recorded.steps.length,
      total_prompt_tokens: 1620,
      total_completion_tokens: 270,
      total_cached_tokens: 0,
    });
  });
});

describe('push', () => {
  let collector: Server;
  let answers: number[];
  let received: number;
  beforeAll(async () => {
    collector = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        received += 1;
        const status = answers.shift() ?? 200;
        response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? '' : `status ${status} from the collector`);
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => collector.close(() => resolve())));
  beforeEach(() => {
    answers = [];
    received = 0;
  });
  const collectorUrl = () => `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;

  async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runExportCommand(args, { out: (text) => out.push(text), err: (text) => err.push(text), errIsTerminal: false, env: {} });
    return { code, out: out.join(''), err: err.join('') };
  }

  test('--all pushes every conversation, with a line per conversation and a summary', async () => {
    const result = await run(['--otlp-endpoint', collectorUrl(), '--base-url', server.url, '--all']);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(new RegExp(`^Pushed 4 of 4 conversations to ${collectorUrl()}/v1/traces: \\d+ spans in 4 requests\\.\\n$`));
    expect(result.err.split('\n').filter(Boolean)).toHaveLength(4);
    expect(received).toBe(4);
  });

  test('a refusing collector is reported with its status and not retried; the rest is not tried', async () => {
    answers = [400];
    const result = await run(['--otlp-endpoint', collectorUrl(), '--base-url', server.url, '--all']);
    expect(result.code).toBe(1);
    expect(result.out).toContain('Pushed 0 of 4 conversations');
    expect(result.out).toContain('answered 400 Bad Request: status 400 from the collector');
    expect(received).toBe(1);
  });

  test('a collector that is unavailable is tried a bounded number of times', async () => {
    answers = [503, 503, 503, 503, 503];
    const events = secretiveConversation();
    async function* stream() {
      yield* events;
    }
    const push = pushConversationTrace(
      new URL(`${collectorUrl()}/v1/traces`),
      { conversationId: SECRETIVE, title: null, info: undefined },
      stream(),
      {
        policy: { attempts: 3, firstRetryDelayMs: 1 },
      },
    );
    await expect(push).rejects.toEqual(
      new PushError(
        `the collector at ${collectorUrl()}/v1/traces answered 503 Service Unavailable: status 503 from the collector; gave up after 3 attempts`,
        503,
      ),
    );
    expect(received).toBe(3);
  });

  test('a slow collector slows the reading: nothing is read far ahead of what it accepted', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = createServer((request, response) => {
      request.resume();
      request.on('end', () => void held.then(() => response.writeHead(200).end()));
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    let read = 0;
    async function* manyCalls() {
      for (let n = 1; n <= 500; n += 1) {
        read += 1;
        yield action({ id: eventId(n), timestamp: '2026-06-01T10:00:00' }, `step ${n}`);
      }
    }
    const push = pushConversationTrace(
      new URL(`http://127.0.0.1:${(slow.address() as AddressInfo).port}/v1/traces`),
      { conversationId: QUIET, title: null, info: undefined },
      manyCalls(),
      { policy: { spansPerRequest: 10 } },
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const readWhileHeld = read;
    release();
    // Each action is a response of its own: a chat span and a tool span, and the root.
    await expect(push).resolves.toEqual({ spans: 1001, requests: 101 });
    await new Promise<void>((resolve) => slow.close(() => resolve()));
    // While the collector held its first answer, the reading waited just past the first batch.
    expect(readWhileHeld).toBeLessThan(30);
  });

  test('an endpoint where nothing listens is reported as not answering', async () => {
    const port = await findFreePort('127.0.0.1');
    const result = await run(['--otlp-endpoint', `http://127.0.0.1:${port}`, '--base-url', server.url, '--conversation', QUIET]);
    expect(result.code).toBe(1);
    expect(result.out).toContain(
      `failed: ${QUIET}: the collector at http://127.0.0.1:${port}/v1/traces did not answer (ECONNREFUSED); gave up after 4 attempts`,
    );
  });

  test('flags that cannot work are refused before anything is sent', async () => {
    const result = await run(['--otlp-endpoint', collectorUrl(), '--base-url', server.url]);
    expect([result.code, result.err]).toEqual([2, 'export: give either --conversation ID (one or more) or --all\n\nRun with --help for usage.\n']);
  });
});

/** Decodes an ExportTraceServiceRequest with the official classes and writes it as OTLP/JSON (hex ids, as OTLP/JSON writes them). */
const DECODE = `
import base64, json, sys
from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
request = ExportTraceServiceRequest()
request.ParseFromString(open(sys.argv[1], 'rb').read())
document = MessageToDict(request)
for resource in document['resourceSpans']:
    for scope in resource['scopeSpans']:
        for span in scope['spans']:
            for key in ('traceId', 'spanId', 'parentSpanId'):
                if key in span:
                    span[key] = base64.b64decode(span[key]).hex()
            span.setdefault('status', {})
            span['status'].setdefault('code', 0)
            if isinstance(span['status']['code'], str):
                span['status']['code'] = {'STATUS_CODE_UNSET': 0, 'STATUS_CODE_OK': 1, 'STATUS_CODE_ERROR': 2}[span['status']['code']]
            span['kind'] = {'SPAN_KIND_INTERNAL': 1, 'SPAN_KIND_CLIENT': 3}.get(span.get('kind'), span.get('kind'))
print(json.dumps(document))
`;
