/**
 * A conversation the reference recorded (sample-data), pushed by `agent-server-contract export`
 * from our server to a real Arize Phoenix, and read back through Phoenix's REST API: one AGENT
 * root, a TOOL span per tool call named after its tool, ERROR where the tool failed, LLM spans
 * with their token usage, and a Phoenix session whose id is the conversation id; Phoenix's own
 * page shows the trace. With UPDATE_SCREENSHOTS=1 the test also writes that page as the
 * screenshot docs/traces-and-trajectories.md shows (a test run leaves the checkout as it was).
 */
import { cpSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { type PhoenixServer, startPhoenix } from '../../dev/phoenix/phoenix-server';
import { runExportCommand } from '../../src/export/trace/push-command';
import { type LiveServer, startLiveServer } from '../support/live-server';

const RECORDED = '1058b2ad0e0c4f2e8a5b3c7d9e1f2a3b';
const RECORDED_ID = '1058b2ad-0e0c-4f2e-8a5b-3c7d9e1f2a3b';
const SAMPLE = path.resolve(__dirname, '../../sample-data/conversations', RECORDED);
const SCREENSHOT = path.resolve(__dirname, '../../docs/images/phoenix-trace.png');

interface PhoenixSpan {
  name: string;
  context: { trace_id: string; span_id: string };
  span_kind: string;
  parent_id: string | null;
  start_time: string;
  end_time: string;
  status_code: string;
  attributes: Record<string, unknown>;
}

let phoenix: PhoenixServer;
let server: LiveServer;

beforeAll(async () => {
  [phoenix, server] = await Promise.all([startPhoenix(), startLiveServer([])]);
  cpSync(SAMPLE, path.join(server.root, RECORDED), { recursive: true });
});

afterAll(async () => {
  await Promise.all([phoenix?.stop(), server?.stop()]);
});

function recordedEvents(): Record<string, unknown>[] {
  const folder = path.join(SAMPLE, 'events');
  return readdirSync(folder)
    .filter((name) => name.startsWith('event-'))
    .sort()
    .map((name) => JSON.parse(readFileSync(path.join(folder, name), 'utf8')) as Record<string, unknown>);
}

async function phoenixSpans(): Promise<PhoenixSpan[]> {
  const spans: PhoenixSpan[] = [];
  let cursor: string | null = null;
  do {
    const response = await fetch(`${phoenix.url}/v1/projects/default/spans?limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
    const body = (await response.json()) as { data: PhoenixSpan[]; next_cursor: string | null };
    spans.push(...body.data);
    cursor = body.next_cursor;
  } while (cursor);
  return spans;
}

test('a pushed conversation reads back from Phoenix as the agent lived it', async () => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runExportCommand(['--otlp-endpoint', `${phoenix.url}/v1/traces`, '--base-url', server.url, '--conversation', RECORDED_ID], {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    errIsTerminal: false,
    env: {},
  });
  const events = recordedEvents();
  const actions = events.filter((event) => event.kind === 'ActionEvent');
  const responses = new Set(events.flatMap((event) => (typeof event.llm_response_id === 'string' ? [event.llm_response_id] : [])));
  const expectedSpans = 1 + actions.length + responses.size;
  expect({ code, out: out.join('') }).toEqual({
    code: 0,
    out: `Pushed 1 of 1 conversation to ${phoenix.url}/v1/traces: ${expectedSpans} spans in 1 requests.\n`,
  });

  let spans: PhoenixSpan[] = [];
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 500))) {
    spans = await phoenixSpans();
    if (spans.length >= expectedSpans) break;
  }
  expect(spans).toHaveLength(expectedSpans);
  expect(new Set(spans.map((span) => span.context.trace_id))).toEqual(new Set([RECORDED]));

  const roots = spans.filter((span) => span.parent_id === null);
  expect(roots.map((span) => [span.name, span.span_kind])).toEqual([['invoke_agent OpenHands', 'AGENT']]);
  const root = roots[0]!;
  for (const span of spans.filter((span) => span !== root)) expect(span.parent_id).toBe(root.context.span_id);

  const tools = spans.filter((span) => span.span_kind === 'TOOL');
  const failedCalls = new Set(events.filter((event) => event.kind === 'AgentErrorEvent').map((event) => event.tool_call_id));
  expect(tools.map((span) => [span.attributes['tool.name'], span.status_code]).sort()).toEqual(
    actions.map((action) => [action.tool_name, failedCalls.has(action.tool_call_id) ? 'ERROR' : 'UNSET']).sort(),
  );

  const state = JSON.parse(readFileSync(path.join(SAMPLE, 'base_state.json'), 'utf8'));
  const recorded = new Map<string, { prompt_tokens: number; completion_tokens: number }>();
  for (const metrics of Object.values(state.stats.usage_to_metrics) as {
    token_usages: { response_id: string; prompt_tokens: number; completion_tokens: number }[];
  }[])
    for (const usage of metrics.token_usages) recorded.set(usage.response_id, usage);
  const llms = spans.filter((span) => span.span_kind === 'LLM');
  expect(llms).toHaveLength(responses.size);
  for (const span of llms) {
    const usage = recorded.get(String(span.attributes['gen_ai.response.id']));
    expect(usage).toBeDefined();
    expect([span.attributes['llm.token_count.prompt'], span.attributes['llm.token_count.completion']]).toEqual([
      usage!.prompt_tokens,
      usage!.completion_tokens,
    ]);
  }

  const session = await fetch(`${phoenix.url}/v1/sessions/${RECORDED_ID}`);
  expect(session.status).toBe(200);
  const sessionBody = (await session.json()) as { data: { session_id: string; traces: { trace_id: string }[] } };
  expect([sessionBody.data.session_id, sessionBody.data.traces.map((trace) => trace.trace_id)]).toEqual([RECORDED_ID, [RECORDED]]);

  await showTraceInPhoenix(root.context.trace_id);
});

/** The trace as Phoenix's page shows it; written as the documentation's screenshot when asked. */
async function showTraceInPhoenix(traceId: string): Promise<void> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const projects = (await (await fetch(`${phoenix.url}/v1/projects`)).json()) as { data: { id: string; name: string }[] };
    const project = projects.data.find((item) => item.name === 'default')!;
    await page.goto(`${phoenix.url}/projects/${project.id}/traces/${traceId}`, { waitUntil: 'networkidle' });
    await page.getByText('invoke_agent OpenHands').first().waitFor({ timeout: 30_000 });
    if (process.env['UPDATE_SCREENSHOTS'] === '1') {
      mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT });
    }
  } finally {
    await browser.close();
  }
}
