/**
 * Hand-written example events for the contract's own tests: every event kind at least once,
 * and a short conversation exactly as the reference server stores it on disk.
 *
 * Every example is checked against the generated types (`satisfies`), so an edit to
 * openapi.yaml that no longer admits one of them breaks compilation here; the schema test
 * checks the same values against the JSON Schema at run time.
 */
import type { Event, EventOfKind, EventKind, EventPage, SearchQuery } from '../../src/contract';

/** An event as the reference stores it: it always has an id and a timestamp. */
type StoredEvent<K extends EventKind> = EventOfKind<K> & { id: string; timestamp: string };

export const CONVERSATION_ID = '8f1a2b3c-4d5e-4f70-8192-a3b4c5d6e7f8';

// ---- Events of every kind ---------------------------------------------------------------

export const condensation = {
  id: 'ce30e9e5-1e91-46f5-8666-a9717c12a68a',
  timestamp: '2026-06-16T06:12:03.118402',
  source: 'environment',
  kind: 'Condensation',
  forgotten_event_ids: ['0b573a33-df99-4537-b2f6-6c2ad5baae62', 'fc1e4696-022d-4b9c-97ef-17aa2be3c4f1', 'e1711e2d-757e-4b9c-b2ab-4ee466009c1a'],
  summary:
    'The user asked to fix a one-cent rounding error in apply_discount. The agent ran the test suite (2 failures in tests/test_discounts.py) and located the rounding in invoice_service/discounts.py.',
  summary_offset: 2,
  llm_response_id: 'chatcmpl-9f3c1d0a7b2e4c58',
} satisfies EventOfKind<'Condensation'>;

/** A condensation that only forgets: no summary is inserted. */
export const condensationWithoutSummary = {
  kind: 'Condensation',
  forgotten_event_ids: ['5857090e-e3e8-49d1-875c-396e200fd2d6'],
  summary: null,
  summary_offset: null,
  llm_response_id: 'chatcmpl-2b8e0f4d91a6c337',
} satisfies EventOfKind<'Condensation'>;

export const condensationRequest = {
  id: '5d9809e1-4c02-4d08-9d47-48b6104af540',
  timestamp: '2026-06-16T06:12:01.904417',
  source: 'environment',
  kind: 'CondensationRequest',
} satisfies EventOfKind<'CondensationRequest'>;

export const condensationSummary = {
  id: '7b875d90-840a-4135-beec-0aa7905ee510',
  timestamp: '2026-06-16T06:12:03.120077',
  kind: 'CondensationSummaryEvent',
  summary: 'Earlier: tests/test_discounts.py had 2 failures caused by rounding before VAT is applied.',
} satisfies EventOfKind<'CondensationSummaryEvent'>;

export const conversationError = {
  id: 'af1b0345-e92b-4df0-8259-647906b62d27',
  timestamp: '2026-06-16T06:20:44.000913',
  source: 'environment',
  kind: 'ConversationErrorEvent',
  code: 'LLMContextWindowExceedError',
  detail: 'Conversation history exceeds the context window of openai/qwen3-coder-30b (4096 tokens) even after condensation.',
} satisfies EventOfKind<'ConversationErrorEvent'>;

export const stateUpdateStatus = {
  id: '1280cb74-07f3-453b-bf63-e8bd4fd85d13',
  timestamp: '2026-06-16T05:39:48.702913',
  source: 'environment',
  kind: 'ConversationStateUpdateEvent',
  key: 'execution_status',
  value: 'running',
} satisfies EventOfKind<'ConversationStateUpdateEvent'>;

/** `value` is any JSON value: here a nested object. */
export const stateUpdateFullState = {
  kind: 'ConversationStateUpdateEvent',
  key: 'full_state',
  value: {
    execution_status: 'paused',
    confirmation_policy: { kind: 'NeverConfirm' },
    max_iterations: 500,
    stuck_detection: true,
    activated_knowledge_skills: [],
    stats: { usage_to_metrics: {} },
  },
} satisfies EventOfKind<'ConversationStateUpdateEvent'>;

export const llmCompletionLog = {
  id: 'bf438fe6-d94d-4782-b367-44ce7171d335',
  timestamp: '2026-06-16T05:39:52.331856',
  kind: 'LLMCompletionLogEvent',
  filename: 'openai__qwen3-coder-30b-1781588392.331-4f1c.json',
  log_data: JSON.stringify({
    messages: [{ role: 'user', content: 'Run the tests.' }],
    response: { id: 'chatcmpl-7d1e5a90c4b2f816', choices: [{ finish_reason: 'tool_calls' }] },
    usage: { prompt_tokens: 5120, completion_tokens: 64 },
  }),
  model_name: 'openai/qwen3-coder-30b',
  usage_id: 'agent',
} satisfies EventOfKind<'LLMCompletionLogEvent'>;

/** TerminalAction's fields are "not shown": its action carries the reference's own fields. */
export const terminalAction = {
  id: '82675222-c24c-4758-9e0f-0db50b40ac6e',
  timestamp: '2026-06-16T05:39:55.210334',
  source: 'agent',
  kind: 'ActionEvent',
  thought: [{ cache_prompt: false, type: 'text', text: 'Let me run the discount tests first to see the failure.' }],
  reasoning_content: 'The bug report says one cent off. Reproduce it before touching the code.',
  thinking_blocks: [
    { type: 'thinking', thinking: 'Start with the failing test to confirm the rounding direction.', signature: 'EqQBCkYIBxgCKkDq3c0b9w==' },
    { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw' },
  ],
  action: {
    command: 'python -m pytest -q tests/test_discounts.py',
    is_input: false,
    timeout: 120,
    reset: false,
    kind: 'TerminalAction',
  },
  tool_name: 'terminal',
  tool_call_id: 'toolu_01A9gk3ZbXq2m7RkTt4v8YcN',
  tool_call: {
    id: 'toolu_01A9gk3ZbXq2m7RkTt4v8YcN',
    name: 'terminal',
    arguments: '{"command": "python -m pytest -q tests/test_discounts.py", "timeout": 120}',
    origin: 'completion',
  },
  llm_response_id: 'msg_01HqT7bV9sK2pW4xYz6cR3nD',
  security_risk: 'LOW',
  summary: 'running discount tests to reproduce the rounding failure',
} satisfies EventOfKind<'ActionEvent'>;

export const finishAction = {
  id: '0c19b776-0c3c-4366-a0b6-f6278611247f',
  timestamp: '2026-06-16T06:05:41.777120',
  kind: 'ActionEvent',
  thought: [{ text: 'All tests pass now.' }],
  action: {
    kind: 'FinishAction',
    message:
      'Fixed the rounding in apply_discount (round after VAT, half-even) and added tests/test_discounts.py::test_discount_with_vat_rounds_once.',
  },
  tool_name: 'finish',
  tool_call_id: 'call_kP2x9Qw7LmN4',
  tool_call: {
    id: 'call_kP2x9Qw7LmN4',
    name: 'finish',
    arguments: '{"message": "Fixed the rounding in apply_discount."}',
    origin: 'completion',
  },
  llm_response_id: 'chatcmpl-5e0a7c3b19d24f66',
  security_risk: 'UNKNOWN',
  critic_result: { score: 0.87, message: 'The fix is covered by a regression test.', metadata: { model: 'critic-v2', threshold: 0.5 } },
} satisfies EventOfKind<'ActionEvent'>;

export const thinkAction = {
  kind: 'ActionEvent',
  thought: [],
  action: { kind: 'ThinkAction', thought: 'compute_vat rounds each line; apply_discount rounds again. Round once, at the end.' },
  tool_name: 'think',
  tool_call_id: 'call_Zt5r1Hc8',
  tool_call: { id: 'call_Zt5r1Hc8', name: 'think', arguments: '{"thought": "Round once, at the end."}', origin: 'completion' },
  llm_response_id: 'chatcmpl-0a1b2c3d4e5f6071',
  critic_result: null,
  summary: null,
} satisfies EventOfKind<'ActionEvent'>;

export const browserClickAction = {
  kind: 'ActionEvent',
  thought: [{ text: 'Open the rounding section of the decimal docs.' }],
  action: { kind: 'BrowserClickAction', index: 12, new_tab: true },
  tool_name: 'browser_click',
  tool_call_id: 'call_Br0wS3r1',
  tool_call: { id: 'call_Br0wS3r1', name: 'browser_click', arguments: '{"index": 12, "new_tab": true}', origin: 'completion' },
  llm_response_id: 'chatcmpl-6c5d4e3f2a1b0987',
  security_risk: 'MEDIUM',
} satisfies EventOfKind<'ActionEvent'>;

/** BrowserTypeAction is partly shown: `index` and `text` are typed, other properties are allowed. */
export const browserTypeAction = {
  kind: 'ActionEvent',
  thought: [{ text: 'Search the docs for ROUND_HALF_EVEN.' }],
  action: { kind: 'BrowserTypeAction', index: 3, text: 'ROUND_HALF_EVEN', submit: true },
  tool_name: 'browser_type',
  tool_call_id: 'call_Typ3T3xt',
  tool_call: { id: 'call_Typ3T3xt', name: 'browser_type', arguments: '{"index": 3, "text": "ROUND_HALF_EVEN"}', origin: 'completion' },
  llm_response_id: 'chatcmpl-6c5d4e3f2a1b0988',
} satisfies EventOfKind<'ActionEvent'>;

export const mcpToolAction = {
  kind: 'ActionEvent',
  source: 'agent',
  thought: [{ text: 'Look up the upstream issue.' }],
  action: { kind: 'MCPToolAction', data: { owner: 'acme-finance', repo: 'invoice-service', issue_number: 214 } },
  tool_name: 'github_get_issue',
  tool_call_id: 'call_Mcp7Gh2',
  tool_call: {
    id: 'call_Mcp7Gh2',
    name: 'github_get_issue',
    arguments: '{"owner": "acme-finance", "repo": "invoice-service", "issue_number": 214}',
    origin: 'completion',
  },
  llm_response_id: 'chatcmpl-3f2e1d0c9b8a7061',
  security_risk: 'LOW',
} satisfies EventOfKind<'ActionEvent'>;

/** FileEditorAction's fields are "not shown": any properties beside `kind`. */
export const fileEditorAction = {
  kind: 'ActionEvent',
  thought: [{ text: 'Round once, after VAT.' }],
  action: {
    command: 'str_replace',
    path: '/workspace/invoice-service/invoice_service/discounts.py',
    old_str: '    return round(net * (1 - rate), 2)',
    new_str: '    return net * (1 - rate)',
    kind: 'FileEditorAction',
  },
  tool_name: 'file_editor',
  tool_call_id: 'call_Ed1tF1le',
  tool_call: {
    id: 'call_Ed1tF1le',
    name: 'file_editor',
    arguments: '{"command": "str_replace", "path": "/workspace/invoice-service/invoice_service/discounts.py"}',
    origin: 'completion',
  },
  llm_response_id: 'chatcmpl-8e7f6a5b4c3d2e1f',
  security_risk: 'MEDIUM',
  summary: 'editing apply_discount to round only once after VAT',
} satisfies EventOfKind<'ActionEvent'>;

/** A call that could not be parsed into an action: `action` is null. From a Responses-API model. */
export const nonExecutableAction = {
  id: '97232977-44e7-4e6e-a953-25185821e9d7',
  timestamp: '2026-06-16T05:41:10.498120',
  kind: 'ActionEvent',
  thought: [],
  responses_reasoning_item: {
    id: 'rs_68a1f0c2d3e4b5a6',
    summary: ['The model tried a tool that is not offered.'],
    content: null,
    encrypted_content: 'gAAAAABoX1vQ3rW2-opaque-provider-data',
    status: 'completed',
  },
  action: null,
  tool_name: 'str_replace_editor',
  tool_call_id: 'call_Nx8s4Tq2',
  tool_call: { id: 'call_Nx8s4Tq2', name: 'str_replace_editor', arguments: '{"command": "view", "path": "/workspace"', origin: 'responses' },
  llm_response_id: 'resp_68a1f0c2d3e4b5a7',
} satisfies EventOfKind<'ActionEvent'>;

/** A user message with an image and content added by an activated skill. */
export const userMessage = {
  id: '35c63f7d-604b-4eae-8abf-3c3419468b09',
  timestamp: '2026-06-16T05:39:49.015522',
  source: 'user',
  kind: 'MessageEvent',
  llm_message: {
    role: 'user',
    content: [
      {
        cache_prompt: false,
        type: 'text',
        text: 'The invoice totals are off by one cent when a percentage discount is combined with VAT. Screenshot attached.',
      },
      {
        cache_prompt: false,
        type: 'image',
        image_urls: ['data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='],
      },
    ],
    thinking_blocks: [],
  },
  llm_response_id: null,
  activated_skills: ['python-testing'],
  extended_content: [{ type: 'text', text: '<EXTRA_INFO>The repository uses pytest; run `python -m pytest -q tests`.</EXTRA_INFO>' }],
  sender: null,
  critic_result: null,
} satisfies EventOfKind<'MessageEvent'>;

/** An agent message carrying every kind of model reasoning the contract names. */
export const agentMessage = {
  id: '986899f2-8b04-441e-9aad-105248e5a0dc',
  timestamp: '2026-06-16T06:05:42.000128',
  source: 'agent',
  kind: 'MessageEvent',
  llm_message: {
    role: 'assistant',
    content: [{ text: 'Done: totals now round once, after VAT. A regression test covers 19.99 with 15% off and 20% VAT.' }],
    tool_calls: null,
    tool_call_id: null,
    name: null,
    reasoning_content: 'Both failures came from double rounding; a single final rounding makes them pass.',
    thinking_blocks: [
      { type: 'thinking', thinking: 'Summarise the change for the user.', signature: null },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgyRedactedByTheProvider' },
    ],
    responses_reasoning_item: { id: null, summary: [], content: ['Summarise.'], encrypted_content: null, status: null },
  },
  llm_response_id: 'chatcmpl-5e0a7c3b19d24f67',
  activated_skills: [],
  extended_content: [],
  sender: 'planner',
  critic_result: { score: 1, message: null },
} satisfies EventOfKind<'MessageEvent'>;

export const agentError = {
  id: '871b45b2-9d15-47ec-a7ba-4ed174cc809f',
  timestamp: '2026-06-16T05:41:10.500911',
  source: 'agent',
  kind: 'AgentErrorEvent',
  tool_name: 'str_replace_editor',
  tool_call_id: 'call_Nx8s4Tq2',
  error: "Tool 'str_replace_editor' not found. Available: ['terminal', 'file_editor', 'task_tracker', 'finish', 'think']",
} satisfies EventOfKind<'AgentErrorEvent'>;

/** TerminalObservation's fields are "not shown": the reference's own fields. */
export const terminalObservation = {
  id: '81b74dc0-32de-485a-9905-52e7a5ee79e5',
  timestamp: '2026-06-16T05:39:58.664420',
  source: 'environment',
  kind: 'ObservationEvent',
  tool_name: 'terminal',
  tool_call_id: 'toolu_01A9gk3ZbXq2m7RkTt4v8YcN',
  observation: {
    content: [
      { cache_prompt: false, type: 'text', text: 'FF.                                                   [100%]\n2 failed, 1 passed in 0.41s' },
    ],
    is_error: false,
    command: 'python -m pytest -q tests/test_discounts.py',
    exit_code: 1,
    timeout: false,
    metadata: { exit_code: 1, pid: -1, working_dir: '/workspace/invoice-service', suffix: '\n[The command completed with exit code 1.]' },
    kind: 'TerminalObservation',
  },
  action_id: '82675222-c24c-4758-9e0f-0db50b40ac6e',
} satisfies EventOfKind<'ObservationEvent'>;

export const userReject = {
  id: '20f855b1-3160-4169-be5d-9827c8709e21',
  timestamp: '2026-06-16T05:44:02.310005',
  kind: 'UserRejectObservation',
  tool_name: 'terminal',
  tool_call_id: 'toolu_01Rm9pQ2sT5vW8xY',
  rejection_reason: 'Blocked by pre-tool-use hook: `rm -rf` is not allowed in this workspace.',
  rejection_source: 'hook',
  action_id: '5500ba27-c29f-41a0-81df-de51c3f5d37d',
} satisfies EventOfKind<'UserRejectObservation'>;

export const systemPrompt = {
  id: '459fd15d-2905-4783-86ab-a2b8d946f3e3',
  timestamp: '2026-06-16T05:39:48.701247',
  source: 'agent',
  kind: 'SystemPromptEvent',
  system_prompt: {
    cache_prompt: true,
    type: 'text',
    text: 'You are OpenHands agent, a helpful AI assistant that can interact with a computer to solve tasks.',
  },
  tools: [
    {
      name: 'terminal',
      description: 'Execute a bash command in the terminal within a persistent shell session.',
      action_type: 'TerminalAction',
      observation_type: 'TerminalObservation',
      annotations: { title: 'terminal', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      kind: 'TerminalTool',
    },
    { name: 'file_editor', description: 'Custom editing tool for viewing, creating and editing files.', kind: 'FileEditorTool' },
    { name: 'finish', description: 'Signals the completion of the current task or conversation.', kind: 'FinishTool' },
    { name: 'think', description: 'Use the tool to think about something.', kind: 'ThinkTool' },
    { kind: 'BrowserToolSet' },
  ],
  dynamic_context: { type: 'text', text: 'Working directory: /workspace/invoice-service. Today is 2026-06-16.' },
} satisfies EventOfKind<'SystemPromptEvent'>;

export const tokenEvent = {
  id: 'aea606b9-57aa-4a1d-be14-02f1af058eeb',
  timestamp: '2026-06-16T05:39:55.209871',
  source: 'agent',
  kind: 'TokenEvent',
  prompt_token_ids: [151644, 8948, 198, 2610, 525, 1787, 2314, 2040],
  response_token_ids: [151657, 198, 4913, 606, 788, 330, 33389, 151658],
} satisfies EventOfKind<'TokenEvent'>;

export const pause = {
  id: '94385dfc-12a0-4501-b53d-5447c2d53620',
  timestamp: '2026-06-16T05:43:30',
  source: 'user',
  kind: 'PauseEvent',
} satisfies EventOfKind<'PauseEvent'>;

/** Every example above, named: at least one of each of the 14 kinds. */
export const EXAMPLE_EVENTS: ReadonlyArray<readonly [name: string, event: Event]> = [
  ['Condensation with a summary', condensation],
  ['Condensation without a summary', condensationWithoutSummary],
  ['CondensationRequest', condensationRequest],
  ['CondensationSummaryEvent', condensationSummary],
  ['ConversationErrorEvent', conversationError],
  ['ConversationStateUpdateEvent with a string value', stateUpdateStatus],
  ['ConversationStateUpdateEvent with an object value', stateUpdateFullState],
  ['LLMCompletionLogEvent', llmCompletionLog],
  ['ActionEvent with a TerminalAction and thinking blocks', terminalAction],
  ['ActionEvent with a FinishAction and a critic result', finishAction],
  ['ActionEvent with a ThinkAction', thinkAction],
  ['ActionEvent with a BrowserClickAction', browserClickAction],
  ['ActionEvent with a BrowserTypeAction and an extra property', browserTypeAction],
  ['ActionEvent with an MCPToolAction', mcpToolAction],
  ['ActionEvent with a FileEditorAction', fileEditorAction],
  ['ActionEvent with action null and a Responses reasoning item', nonExecutableAction],
  ['MessageEvent from the user with an image and extended content', userMessage],
  ['MessageEvent from the agent with reasoning', agentMessage],
  ['AgentErrorEvent', agentError],
  ['ObservationEvent with a TerminalObservation', terminalObservation],
  ['UserRejectObservation from a hook', userReject],
  ['SystemPromptEvent with tools', systemPrompt],
  ['TokenEvent', tokenEvent],
  ['PauseEvent', pause],
];

/** A page as the search operation returns it. */
export const EXAMPLE_PAGE: EventPage = {
  items: [systemPrompt, userMessage, terminalAction],
  next_page_id: terminalObservation.id,
};

/** A search request that sets every query parameter. */
export const EXAMPLE_SEARCH_QUERY = {
  page_id: terminalObservation.id,
  limit: 50,
  kind: 'MessageEvent',
  source: 'user',
  body: 'one cent',
  sort_order: 'TIMESTAMP_DESC',
  timestamp__gte: '2026-06-16T05:00:00Z',
  timestamp__lt: '2026-06-16T07:00:00+02:00',
} satisfies SearchQuery;

// ---- A conversation as stored on disk (docs/reference-behaviour.md, "On-disk layout") --------------------------
//
// Each object below is written in the field order of the reference's pydantic models, with
// what `model_dump_json(exclude_none=True)` keeps: fields that are None are absent, fields
// with defaults are present, and `kind` comes last in every discriminated object. So
// `JSON.stringify(event)` is byte for byte the file the reference writes.

const storedSystemPrompt = {
  id: '445bdadc-86bc-41d5-b269-d94695372f58',
  timestamp: '2026-06-16T05:39:48.701247',
  source: 'agent',
  system_prompt: {
    cache_prompt: false,
    type: 'text',
    text: 'You are OpenHands agent, a helpful AI assistant that can interact with a computer to solve tasks.',
  },
  tools: [
    {
      description: 'Execute a bash command in the terminal within a persistent shell session.',
      action_type: 'TerminalAction',
      observation_type: 'TerminalObservation',
      annotations: { title: 'terminal', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      title: 'terminal',
      kind: 'TerminalTool',
    },
    {
      description: 'Signals the completion of the current task or conversation.',
      action_type: 'FinishAction',
      observation_type: 'FinishObservation',
      title: 'finish',
      kind: 'FinishTool',
    },
  ],
  kind: 'SystemPromptEvent',
} satisfies StoredEvent<'SystemPromptEvent'>;

const storedStateRunning = {
  id: '73ca4a36-dcb3-4521-bf27-af8c0afbd68a',
  timestamp: '2026-06-16T05:39:48.702913',
  source: 'environment',
  key: 'execution_status',
  value: 'running',
  kind: 'ConversationStateUpdateEvent',
} satisfies StoredEvent<'ConversationStateUpdateEvent'>;

const storedUserMessage = {
  id: '8c25eda2-2c4f-4f32-a665-c04d18340532',
  timestamp: '2026-06-16T05:39:49.015522',
  source: 'user',
  llm_message: {
    role: 'user',
    content: [
      {
        cache_prompt: false,
        type: 'text',
        text: 'The invoice totals are off by one cent when a percentage discount is combined with VAT. Please fix it.',
      },
    ],
    thinking_blocks: [],
  },
  activated_skills: [],
  extended_content: [],
  kind: 'MessageEvent',
} satisfies StoredEvent<'MessageEvent'>;

const storedTerminalAction = {
  id: 'cb167b63-8c0c-43c1-afba-2a74437399df',
  timestamp: '2026-06-16T05:39:55.210334',
  source: 'agent',
  thought: [{ cache_prompt: false, type: 'text', text: 'Let me run the discount tests first.' }],
  reasoning_content: 'Reproduce the failure before changing code.',
  thinking_blocks: [],
  action: { command: 'python -m pytest -q tests/test_discounts.py', is_input: false, reset: false, kind: 'TerminalAction' },
  tool_name: 'terminal',
  tool_call_id: 'call_3fQk8ZrT1mW9',
  tool_call: {
    id: 'call_3fQk8ZrT1mW9',
    name: 'terminal',
    arguments: '{"command": "python -m pytest -q tests/test_discounts.py"}',
    origin: 'completion',
  },
  llm_response_id: 'chatcmpl-7d1e5a90c4b2f816',
  security_risk: 'LOW',
  summary: 'running discount tests to reproduce the rounding failure',
  kind: 'ActionEvent',
} satisfies StoredEvent<'ActionEvent'>;

const storedTerminalObservation = {
  id: '7192cd9b-a57f-436c-8674-25bb78b517e7',
  timestamp: '2026-06-16T05:39:58.664420',
  source: 'environment',
  tool_name: 'terminal',
  tool_call_id: 'call_3fQk8ZrT1mW9',
  observation: {
    content: [
      { cache_prompt: false, type: 'text', text: 'FF.                                                   [100%]\n2 failed, 1 passed in 0.41s' },
    ],
    is_error: false,
    command: 'python -m pytest -q tests/test_discounts.py',
    exit_code: 1,
    timeout: false,
    metadata: {
      exit_code: 1,
      pid: -1,
      username: 'openhands',
      working_dir: '/workspace/invoice-service',
      prefix: '',
      suffix: '\n[The command completed with exit code 1.]',
    },
    kind: 'TerminalObservation',
  },
  action_id: 'cb167b63-8c0c-43c1-afba-2a74437399df',
  kind: 'ObservationEvent',
} satisfies StoredEvent<'ObservationEvent'>;

const storedFinishAction = {
  id: 'd786b5a2-1d1d-4043-9357-c088921d126e',
  timestamp: '2026-06-16T05:40:00',
  source: 'agent',
  thought: [],
  thinking_blocks: [],
  action: { message: 'Fixed: apply_discount now rounds once, after VAT.', kind: 'FinishAction' },
  tool_name: 'finish',
  tool_call_id: 'call_9LmQ2xV7bN4c',
  tool_call: {
    id: 'call_9LmQ2xV7bN4c',
    name: 'finish',
    arguments: '{"message": "Fixed: apply_discount now rounds once, after VAT."}',
    origin: 'completion',
  },
  llm_response_id: 'chatcmpl-1c0b9a8d7e6f5a43',
  security_risk: 'UNKNOWN',
  kind: 'ActionEvent',
} satisfies StoredEvent<'ActionEvent'>;

const storedFinishObservation = {
  id: '88072453-412c-4086-9d74-c27e36241d49',
  timestamp: '2026-06-16T05:40:00.000412',
  source: 'environment',
  tool_name: 'finish',
  tool_call_id: 'call_9LmQ2xV7bN4c',
  observation: {
    content: [{ cache_prompt: false, type: 'text', text: 'Fixed: apply_discount now rounds once, after VAT.' }],
    is_error: false,
    kind: 'FinishObservation',
  },
  action_id: 'd786b5a2-1d1d-4043-9357-c088921d126e',
  kind: 'ObservationEvent',
} satisfies StoredEvent<'ObservationEvent'>;

const storedStateFinished = {
  id: 'ed84125b-c346-468c-82e1-9769aaafcd91',
  timestamp: '2026-06-16T05:40:00.001907',
  source: 'environment',
  key: 'execution_status',
  value: 'finished',
  kind: 'ConversationStateUpdateEvent',
} satisfies StoredEvent<'ConversationStateUpdateEvent'>;

/** One stored event file: its name in `events/`, its exact text, and the event it holds. */
export interface StoredEventFile {
  readonly fileName: string;
  readonly text: string;
  readonly event: Event;
}

/** The conversation's directory name: its id as 32 lower-case hex digits. */
export const STORED_CONVERSATION_DIRECTORY = CONVERSATION_ID.replaceAll('-', '');

/** A short conversation in append order, as `events/event-<index>-<id>.json` files. */
export const STORED_EVENT_FILES: readonly StoredEventFile[] = [
  storedSystemPrompt,
  storedStateRunning,
  storedUserMessage,
  storedTerminalAction,
  storedTerminalObservation,
  storedFinishAction,
  storedFinishObservation,
  storedStateFinished,
].map((event, index) => ({
  fileName: `event-${String(index).padStart(5, '0')}-${event.id}.json`,
  text: JSON.stringify(event),
  event,
}));

/**
 * The text of the user message's file, written out by hand, so that the test can show the
 * objects above serialise to exactly what the reference writes.
 */
export const STORED_USER_MESSAGE_TEXT =
  '{"id":"8c25eda2-2c4f-4f32-a665-c04d18340532","timestamp":"2026-06-16T05:39:49.015522","source":"user",' +
  '"llm_message":{"role":"user","content":[{"cache_prompt":false,"type":"text","text":"The invoice totals are off by one cent ' +
  'when a percentage discount is combined with VAT. Please fix it."}],"thinking_blocks":[]},' +
  '"activated_skills":[],"extended_content":[],"kind":"MessageEvent"}';
