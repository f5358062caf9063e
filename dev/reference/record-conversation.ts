/**
 * Records one conversation with the real reference agent server, driven through its own API by
 * a scripted model: real tools (terminal, file editor, task tracker, think, finish), a pause, a
 * confirmation that is rejected, a model error, an invalid tool call, a condenser with a tiny
 * window whose summaries the script writes, a manual condensation, until the run finishes. The
 * reference writes the conversation into its conversations directory as it always does.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ModelScripts, type ScriptedModel, type ScriptedReply, startScriptedModel } from './scripted-model';

/** Sent as the model's key; the reference masks keys when it stores state, and the recorder checks it. */
export const SCRIPTED_MODEL_KEY = 'scripted-model-key';

const AGENT_MODEL = 'scripted';
const SUMMARY_MODEL = 'scripted-summarizer';

export interface RecordedConversation {
  /** 32 lower-case hex digits, the folder the reference wrote. */
  readonly conversationId: string;
  readonly executionStatus: string;
  /** Every request the reference sent to the scripted model, in order. */
  readonly modelRequests: ScriptedModel['requests'];
}

/** What the agent's model answers, in order; each turn is one run of the agent. */
const AGENT_SCRIPT: readonly ScriptedReply[] = [
  // Turn 1 (the initial message): a task list, a command, a file, a thought, two broken calls, a text reply.
  {
    text: 'Planning first.',
    toolCalls: [
      {
        name: 'task_tracker',
        arguments: {
          command: 'plan',
          task_list: [
            { title: 'Write greeting.txt', notes: 'with the terminal', status: 'in_progress' },
            { title: 'Write notes.md', notes: 'with the file editor', status: 'todo' },
          ],
        },
      },
    ],
  },
  { toolCalls: [{ name: 'terminal', arguments: { command: 'echo hello from the terminal > greeting.txt && cat greeting.txt' } }] },
  {
    toolCalls: [
      { name: 'file_editor', arguments: { command: 'create', path: 'WORKSPACE/notes.md', file_text: '# Notes\n\nThe greeting is written.\n' } },
    ],
  },
  { toolCalls: [{ name: 'think', arguments: { thought: 'Both files exist; the search index should find the word greeting.' } }] },
  { toolCalls: [{ name: 'no_such_tool', arguments: { anything: true } }] },
  { toolCalls: [{ name: 'terminal', arguments: '{"command": "ls' }] },
  { text: 'Greeting and notes are written.' },
  // Turn 2 (after a pause and a resume): one command, then a text reply.
  { toolCalls: [{ name: 'terminal', arguments: { command: 'wc -c greeting.txt' } }] },
  { text: 'The greeting has 24 bytes.' },
  // Turn 3 (confirmation mode): the command is rejected; the run stops there.
  { toolCalls: [{ name: 'terminal', arguments: { command: 'rm greeting.txt' } }] },
  // Turn 4: the model fails, which ends the run in error.
  { error: { status: 400, message: 'scripted failure: the model refuses this request' } },
  // Turn 5: recovered; finish.
  { toolCalls: [{ name: 'finish', arguments: { message: 'All done: greeting.txt and notes.md are in the workspace.' } }] },
];

/** Enough summaries for every condensation the tiny window causes; unused ones are left. */
const SUMMARY_SCRIPT: readonly ScriptedReply[] = Array.from({ length: 12 }, (_, index) => ({
  text: `Summary ${index + 1}: the user asked for a greeting file and notes; the agent wrote both with the terminal and the file editor.`,
}));

export interface RecordOptions {
  /** The reference's base URL. */
  readonly referenceUrl: string;
  /** The conversation's id (32 hex digits); the reference picks one when it is left out. */
  readonly conversationId?: string;
  /** How long a run may take before the recording fails. */
  readonly runTimeoutMs?: number;
}

export async function recordConversation(options: RecordOptions): Promise<RecordedConversation> {
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'reference-workspace-'));
  const script = AGENT_SCRIPT.map((reply) => withWorkspace(reply, workspace));
  const scripts: ModelScripts = { [AGENT_MODEL]: script, [SUMMARY_MODEL]: SUMMARY_SCRIPT };
  const model = await startScriptedModel(scripts);
  const api = new ReferenceApi(options.referenceUrl, options.runTimeoutMs ?? 60_000);
  try {
    const llm = (modelName: string, usageId: string) => ({
      model: `openai/${modelName}`,
      base_url: model.baseUrl,
      api_key: SCRIPTED_MODEL_KEY,
      usage_id: usageId,
      num_retries: 0,
      stream: false,
      // A local model is free; litellm would otherwise look the price up.
      input_cost_per_token: 0,
      output_cost_per_token: 0,
    });
    const created = await api.post<{ id: string }>('/api/conversations', {
      ...(options.conversationId === undefined ? {} : { conversation_id: options.conversationId }),
      agent: {
        kind: 'Agent',
        llm: {
          ...llm(AGENT_MODEL, 'agent'),
          // Each completion is also recorded as an event.
          log_completions: true,
          log_completions_folder: path.join(workspace, '.completions'),
        },
        tools: [{ name: 'terminal' }, { name: 'file_editor' }, { name: 'task_tracker' }],
        condenser: { kind: 'LLMSummarizingCondenser', llm: llm(SUMMARY_MODEL, 'condenser'), max_size: 8, keep_first: 2 },
      },
      // The reference starts without its tools imported (OH_PRELOAD_TOOLS=false): name their modules.
      tool_module_qualnames: {
        terminal: 'openhands.tools.terminal.definition',
        file_editor: 'openhands.tools.file_editor.definition',
        task_tracker: 'openhands.tools.task_tracker.definition',
      },
      workspace: { kind: 'LocalWorkspace', working_dir: workspace },
      autotitle: false,
      initial_message: userMessage('Write a greeting into greeting.txt with the terminal, and notes into notes.md.'),
    });
    const id = created.id;
    const conversation = `/api/conversations/${id}`;
    // Each wait names the status the conversation had before the step: the reference acts on a
    // request after answering it, so that status can still be read once the request is answered.
    let status = await api.waitForStatus(id, ['finished']);

    // A pause between runs: a message without a run leaves it idle, the pause is recorded, /run resumes.
    await api.post(`${conversation}/events`, { ...userMessage('How long is the greeting?'), run: false });
    await api.post(`${conversation}/pause`);
    status = await api.waitForStatus(id, ['paused'], status);
    await api.post(`${conversation}/run`);
    status = await api.waitForStatus(id, ['finished'], status);

    // Confirmation mode: the agent's command waits for the user, who rejects it.
    await api.post(`${conversation}/confirmation_policy`, { policy: { kind: 'AlwaysConfirm' } });
    await api.post(`${conversation}/events`, { ...userMessage('Delete the greeting.'), run: true });
    status = await api.waitForStatus(id, ['waiting_for_confirmation'], status);
    await api.post(`${conversation}/events/respond_to_confirmation`, { accept: false, reason: 'Keep the greeting.' });
    status = await api.waitForStatus(id, ['idle', 'finished'], status);
    await api.post(`${conversation}/confirmation_policy`, { policy: { kind: 'NeverConfirm' } });

    // The model fails: the run ends in error.
    await api.post(`${conversation}/events`, { ...userMessage('Anything else?'), run: true });
    status = await api.waitForStatus(id, ['error'], status);

    // A manual condensation, then a last message that the agent finishes.
    await api.post(`${conversation}/condense`);
    await api.post(`${conversation}/events`, { ...userMessage('Please wrap up.'), run: true });
    const finished = await api.waitForStatus(id, ['finished'], status);

    const left = model.remaining(AGENT_MODEL);
    if (left !== 0)
      throw new Error(`the recording ended with ${left} agent replies unused: the reference took a different path than the script expects`);
    return { conversationId: id.replaceAll('-', ''), executionStatus: finished, modelRequests: model.requests };
  } finally {
    await model.stop();
    rmSync(workspace, { recursive: true, force: true });
  }
}

function userMessage(text: string): { role: 'user'; content: { type: 'text'; text: string }[] } {
  return { role: 'user', content: [{ type: 'text', text }] };
}

/** File editor paths must be absolute: the script names the workspace as `WORKSPACE`. */
function withWorkspace(reply: ScriptedReply, workspace: string): ScriptedReply {
  if (!('toolCalls' in reply)) return reply;
  return {
    ...reply,
    toolCalls: reply.toolCalls.map((call) => ({
      ...call,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.parse(JSON.stringify(call.arguments).replaceAll('WORKSPACE', workspace)),
    })),
  };
}

/** Statuses a conversation stays in until someone acts. */
const SETTLED = ['finished', 'error', 'stuck', 'waiting_for_confirmation', 'paused'];

class ReferenceApi {
  constructor(
    private readonly baseUrl: string,
    private readonly runTimeoutMs: number,
  ) {}

  async post<Body = unknown>(route: string, body?: unknown): Promise<Body> {
    const response = await fetch(this.baseUrl + route, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`POST ${route} answered ${response.status}: ${text.slice(0, 500)}`);
    return (text ? JSON.parse(text) : undefined) as Body;
  }

  /**
   * Polls the conversation until its `execution_status` is one of `wanted`; fails on a status
   * it did not expect to stay in, but for `before` (the status before the step just taken, which
   * lasts until the reference acts on it; each step here leads to another status).
   */
  async waitForStatus(id: string, wanted: readonly string[], before?: string): Promise<string> {
    const deadline = Date.now() + this.runTimeoutMs;
    let status = '';
    while (Date.now() < deadline) {
      const response = await fetch(`${this.baseUrl}/api/conversations/${id}`);
      if (!response.ok) throw new Error(`GET /api/conversations/${id} answered ${response.status}`);
      status = ((await response.json()) as { execution_status: string }).execution_status;
      if (wanted.includes(status)) return status;
      if (SETTLED.includes(status) && status !== before)
        throw new Error(`conversation ${id} settled as "${status}" instead of ${wanted.join(' or ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`conversation ${id} stayed "${status}" instead of reaching ${wanted.join(' or ')} within ${this.runTimeoutMs} ms`);
  }
}

export interface RecordingSummary {
  readonly events: number;
  /** The kinds the recording holds, sorted. */
  readonly kinds: string[];
}

/**
 * Reads what the reference wrote for one conversation: how many events, of which kinds. Fails if
 * any file holds the model key in clear, so a recording that would leak a key is never kept.
 */
export function summariseRecording(conversationDirectory: string): RecordingSummary {
  const files = listFiles(conversationDirectory);
  const leaking = files.filter((file) => readFileSync(file, 'utf8').includes(SCRIPTED_MODEL_KEY));
  if (leaking.length > 0)
    throw new Error(`the recording holds the model key in clear in ${leaking.map((file) => path.relative(conversationDirectory, file)).join(', ')}`);
  const eventsDirectory = path.join(conversationDirectory, 'events');
  const kinds = new Set<string>();
  const names = readdirSync(eventsDirectory).filter((name) => name.endsWith('.json'));
  for (const name of names) kinds.add((JSON.parse(readFileSync(path.join(eventsDirectory, name), 'utf8')) as { kind: string }).kind);
  return { events: names.length, kinds: [...kinds].sort() };
}

function listFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(path.join(directory, entry.name)) : [path.join(directory, entry.name)],
  );
}
