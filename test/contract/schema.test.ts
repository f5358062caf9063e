/**
 * The contract document checked against the seed (seed/agent-server-events.md) and against
 * the hand-written examples, with Ajv 2020 in strict mode (see contract-schema.ts for the
 * options and why).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { SEARCH_PATH, eventKindNames, loadOpenApiDocument, type OpenApiDocument } from '../../src/contract';
import { componentValidator, createContractAjv, searchParameterValidator, validationErrors, type ErrorSummary } from './contract-schema';
import {
  EXAMPLE_EVENTS,
  EXAMPLE_PAGE,
  STORED_CONVERSATION_DIRECTORY,
  STORED_EVENT_FILES,
  STORED_USER_MESSAGE_TEXT,
  agentError,
  condensation,
  conversationError,
  finishAction,
  pause,
  systemPrompt,
  terminalAction,
  terminalObservation,
  tokenEvent,
  userMessage,
} from './examples';

// The kind names as the seed lists them (sections 2.2, 2.4, 2.5), typed in by hand so the
// document is compared with the seed, not with itself.
const SEED_EVENT_KINDS = [
  'Condensation',
  'CondensationRequest',
  'CondensationSummaryEvent',
  'ConversationErrorEvent',
  'ConversationStateUpdateEvent',
  'LLMCompletionLogEvent',
  'ActionEvent',
  'MessageEvent',
  'AgentErrorEvent',
  'ObservationEvent',
  'UserRejectObservation',
  'SystemPromptEvent',
  'TokenEvent',
  'PauseEvent',
];
const SEED_ACTION_KINDS = [
  'MCPToolAction',
  'FinishAction',
  'ThinkAction',
  'BrowserAction',
  'BrowserClickAction',
  'BrowserCloseTabAction',
  'BrowserGetContentAction',
  'BrowserGetStateAction',
  'BrowserGetStorageAction',
  'BrowserGoBackAction',
  'BrowserListTabsAction',
  'BrowserNavigateAction',
  'BrowserScrollAction',
  'BrowserSetStorageAction',
  'BrowserStartRecordingAction',
  'BrowserStopRecordingAction',
  'BrowserSwitchTabAction',
  'BrowserTypeAction',
  'FileEditorAction',
  'EditAction',
  'ListDirectoryAction',
  'ReadFileAction',
  'WriteFileAction',
  'GlobAction',
  'GrepAction',
  'PlanningFileEditorAction',
  'TaskTrackerAction',
  'TerminalAction',
];
const SEED_OBSERVATION_KINDS = [
  'MCPToolObservation',
  'FinishObservation',
  'ThinkObservation',
  'BrowserObservation',
  'FileEditorObservation',
  'EditObservation',
  'ListDirectoryObservation',
  'ReadFileObservation',
  'WriteFileObservation',
  'GlobObservation',
  'GrepObservation',
  'PlanningFileEditorObservation',
  'TaskTrackerObservation',
  'TerminalObservation',
];
const SEED_TOOL_KINDS = [
  'MCPToolDefinition',
  'FinishTool',
  'ThinkTool',
  'BrowserClickTool',
  'BrowserCloseTabTool',
  'BrowserGetContentTool',
  'BrowserGetStateTool',
  'BrowserGetStorageTool',
  'BrowserGoBackTool',
  'BrowserListTabsTool',
  'BrowserNavigateTool',
  'BrowserScrollTool',
  'BrowserSetStorageTool',
  'BrowserStartRecordingTool',
  'BrowserStopRecordingTool',
  'BrowserSwitchTabTool',
  'BrowserToolSet',
  'BrowserTypeTool',
  'FileEditorTool',
  'EditTool',
  'ListDirectoryTool',
  'ReadFileTool',
  'WriteFileTool',
  'GlobTool',
  'GrepTool',
  'PlanningFileEditorTool',
  'TaskTrackerTool',
  'TerminalTool',
];
// Seed 2.4: the specified Action kinds reject unknown properties, BrowserTypeAction's other
// properties are "not shown", and so are all fields of the last ten kinds.
const OPEN_ACTION_KINDS = [
  'BrowserTypeAction',
  'FileEditorAction',
  'EditAction',
  'ListDirectoryAction',
  'ReadFileAction',
  'WriteFileAction',
  'GlobAction',
  'GrepAction',
  'PlanningFileEditorAction',
  'TaskTrackerAction',
  'TerminalAction',
];

type Schema = {
  oneOf?: Array<{ $ref: string }>;
  discriminator?: { propertyName: string; mapping: Record<string, string> };
  properties?: Record<string, Schema & { const?: unknown }>;
  required?: string[];
  additionalProperties?: boolean;
};

// The structure is read from openapi.yaml, the source; one test below shows that the
// run-time copy generated/openapi.json is the same document, and Ajv validates with that copy.
const source = parse(readFileSync(path.resolve(__dirname, '../../openapi.yaml'), 'utf8')) as OpenApiDocument;
const schemas = source.components.schemas as Record<string, Schema>;
const document = loadOpenApiDocument();
const ajv = createContractAjv(document);
const validateEvent = componentValidator(ajv, 'Event');

function schemaNamed(name: string): Schema {
  const schema = schemas[name];
  if (!schema) throw new Error(`the contract has no schema ${name}`);
  return schema;
}

function sorted(names: readonly string[]): string[] {
  return [...names].sort();
}

describe('the document', () => {
  // If this lists every `.../properties/kind`, the generator handed its parsed document to
  // openapi-typescript, which rewrites each discriminated member's `kind` in place (`const`
  // becomes `enum` with a description of its own); generate it from a copy instead.
  test('generated/openapi.json is openapi.yaml, unchanged', () => {
    expect(differences(source, document)).toEqual([]);
  });

  test('is the OpenAPI 3.1.0 description "Agent Server" 0.1.0 with an empty security requirement', () => {
    const info = source['info'] as { title: string; version: string };
    expect({ openapi: source.openapi, title: info.title, version: info.version, security: source['security'] }).toEqual({
      openapi: '3.1.0',
      title: 'Agent Server',
      version: '0.1.0',
      security: [],
    });
  });

  test('declares no security schemes', () => {
    expect((source.components as Record<string, unknown>)['securitySchemes']).toBeUndefined();
  });

  test('declares the search operation with the parameters of seed section 4.1', () => {
    const operation = source.paths[SEARCH_PATH]?.['get'] as { parameters: Array<{ name: string; in: string; required: boolean }> };
    expect(operation.parameters.map(({ name, in: location, required }) => ({ name, in: location, required }))).toEqual([
      { name: 'conversation_id', in: 'path', required: true },
      { name: 'page_id', in: 'query', required: false },
      { name: 'limit', in: 'query', required: false },
      { name: 'kind', in: 'query', required: false },
      { name: 'source', in: 'query', required: false },
      { name: 'body', in: 'query', required: false },
      { name: 'sort_order', in: 'query', required: false },
      { name: 'timestamp__gte', in: 'query', required: false },
      { name: 'timestamp__lt', in: 'query', required: false },
    ]);
  });

  test('declares limit as an integer greater than 0, at most 100, default 100', () => {
    const operation = source.paths[SEARCH_PATH]?.['get'] as { parameters: Array<{ name: string; schema: unknown }> };
    const limit = operation.parameters.find((parameter) => parameter.name === 'limit');
    expect(limit?.schema).toEqual({ type: 'integer', exclusiveMinimum: 0, maximum: 100, default: 100 });
  });

  test('eventKindNames() lists the 14 event kinds of the seed', () => {
    expect(sorted(eventKindNames(document))).toEqual(sorted(SEED_EVENT_KINDS));
  });
});

describe.each([
  ['Event', { seedKinds: SEED_EVENT_KINDS }],
  ['Action', { seedKinds: SEED_ACTION_KINDS }],
  ['Observation', { seedKinds: SEED_OBSERVATION_KINDS }],
  ['ToolDefinition', { seedKinds: SEED_TOOL_KINDS }],
])('the %s union', (unionName, { seedKinds }) => {
  const union = schemaNamed(unionName);
  const mapping = union.discriminator?.mapping ?? {};

  test(`is discriminated by kind, and its mapping keys are exactly the ${seedKinds.length} kind names of the seed`, () => {
    expect(union.discriminator?.propertyName).toBe('kind');
    expect(sorted(Object.keys(mapping))).toEqual(sorted(seedKinds));
  });

  test('maps each kind to the schema of that name, and lists exactly the mapped schemas in oneOf', () => {
    const wantMapping = Object.fromEntries(seedKinds.map((kind) => [kind, `#/components/schemas/${kind}`]));
    expect(mapping).toEqual(wantMapping);
    expect(sorted((union.oneOf ?? []).map((member) => member.$ref))).toEqual(sorted(Object.values(wantMapping)));
  });

  test('gives each mapped schema a required kind whose const equals its mapping key', () => {
    const kindOf = (name: string) => {
      const schema = schemaNamed(name);
      return { const: schema.properties?.['kind']?.const, required: schema.required?.includes('kind') };
    };
    expect(Object.fromEntries(Object.keys(mapping).map((kind) => [kind, kindOf(kind)]))).toEqual(
      Object.fromEntries(seedKinds.map((kind) => [kind, { const: kind, required: true }])),
    );
  });
});

test('every event kind rejects unknown properties (additionalProperties: false)', () => {
  expect(Object.fromEntries(SEED_EVENT_KINDS.map((kind) => [kind, schemaNamed(kind).additionalProperties]))).toEqual(
    Object.fromEntries(SEED_EVENT_KINDS.map((kind) => [kind, false])),
  );
});

test('the specified Action kinds are closed and the ones with fields "not shown" are open', () => {
  expect(Object.fromEntries(SEED_ACTION_KINDS.map((kind) => [kind, schemaNamed(kind).additionalProperties]))).toEqual(
    Object.fromEntries(SEED_ACTION_KINDS.map((kind) => [kind, OPEN_ACTION_KINDS.includes(kind)])),
  );
});

describe('the examples', () => {
  test('cover all 14 event kinds', () => {
    expect(sorted([...new Set(EXAMPLE_EVENTS.map(([, event]) => event.kind))])).toEqual(sorted(SEED_EVENT_KINDS));
  });

  test.each(EXAMPLE_EVENTS)('%s is a valid Event', (_name, event) => {
    expect(validationErrors(validateEvent, event)).toEqual([]);
  });

  test('the example page is a valid EventPage', () => {
    expect(validationErrors(componentValidator(ajv, 'EventPage'), EXAMPLE_PAGE)).toEqual([]);
  });
});

describe('stored event files (docs/reference-behaviour.md, "On-disk layout")', () => {
  const FILE_NAME = /^event-(?<index>\d{5,})-(?<id>[0-9a-fA-F-]{8,})\.json$/;
  const NAIVE_MICROSECOND_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?$/;

  /** Every object that has a `kind` has it as its last key; no value anywhere is null. */
  function dumpShape(value: unknown): { kindLast: boolean; noNull: boolean } {
    if (value === null) return { kindLast: true, noNull: false };
    if (typeof value !== 'object') return { kindLast: true, noNull: true };
    const children = Object.values(value).map(dumpShape);
    const keys = Object.keys(value);
    const ownKindLast = !keys.includes('kind') || keys.at(-1) === 'kind';
    return {
      kindLast: ownKindLast && children.every((child) => child.kindLast),
      noNull: children.every((child) => child.noNull),
    };
  }

  test.each(STORED_EVENT_FILES.map((file, index) => [file.fileName, { file, index }] as const))('%s', (_name, { file, index }) => {
    const parsed: unknown = JSON.parse(file.text);
    const name = FILE_NAME.exec(file.fileName)?.groups;
    expect({
      index: Number(name?.['index']),
      id: name?.['id'],
      compact: JSON.stringify(parsed) === file.text,
      ...dumpShape(parsed),
      naiveTimestamp: NAIVE_MICROSECOND_TIMESTAMP.test(file.event.timestamp ?? ''),
      errors: validationErrors(validateEvent, parsed),
    }).toEqual({
      index,
      id: file.event.id,
      compact: true,
      kindLast: true,
      noNull: true,
      naiveTimestamp: true,
      errors: [],
    });
  });

  test('are in append order: consecutive indices and non-decreasing timestamps', () => {
    const timestamps = STORED_EVENT_FILES.map((file) => file.event.timestamp ?? '');
    expect(timestamps).toEqual([...timestamps].sort());
    expect(STORED_EVENT_FILES.map((file) => file.fileName.slice(0, 'event-00000'.length))).toEqual(
      STORED_EVENT_FILES.map((_file, index) => `event-${String(index).padStart(5, '0')}`),
    );
  });

  test('serialise to the bytes the reference writes', () => {
    const userMessageFile = STORED_EVENT_FILES.find((file) => file.event.kind === 'MessageEvent');
    expect(userMessageFile?.text).toBe(STORED_USER_MESSAGE_TEXT);
  });

  test('belong to a conversation directory named by 32 lower-case hex digits', () => {
    expect(STORED_CONVERSATION_DIRECTORY).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('rejected events', () => {
  // `explain` names the schema, and `at` the path inside `given`, whose errors say why the
  // Event is rejected; Event's own errors list every one of its 14 members and say little.
  type Rejection = { given: unknown; explain: string; at?: string[]; want: ErrorSummary[] };
  const cases: Array<[string, Rejection]> = [
    [
      'an unknown property on an event kind (parent_id, which newer servers write)',
      {
        given: { ...userMessage, parent_id: terminalAction.id },
        explain: 'MessageEvent',
        want: [{ instancePath: '', keyword: 'additionalProperties', params: { additionalProperty: 'parent_id' } }],
      },
    ],
    [
      'a missing required field (ActionEvent without tool_call)',
      {
        given: without(terminalAction, 'tool_call'),
        explain: 'ActionEvent',
        want: [{ instancePath: '', keyword: 'required', params: { missingProperty: 'tool_call' } }],
      },
    ],
    [
      'a missing source where the kind has no default (ConversationErrorEvent)',
      {
        given: without(conversationError, 'source'),
        explain: 'ConversationErrorEvent',
        want: [{ instancePath: '', keyword: 'required', params: { missingProperty: 'source' } }],
      },
    ],
    [
      'the kind of another event (an AgentErrorEvent labelled ObservationEvent)',
      {
        given: { ...agentError, kind: 'ObservationEvent' },
        explain: 'ObservationEvent',
        want: [
          { instancePath: '', keyword: 'required', params: { missingProperty: 'observation' } },
          { instancePath: '', keyword: 'required', params: { missingProperty: 'action_id' } },
          { instancePath: '', keyword: 'additionalProperties', params: { additionalProperty: 'error' } },
        ],
      },
    ],
    [
      'a source outside agent, user, environment',
      {
        given: { ...pause, source: 'system' },
        explain: 'PauseEvent',
        want: [{ instancePath: '/source', keyword: 'enum', params: { allowedValues: ['agent', 'user', 'environment'] } }],
      },
    ],
    [
      'a CriticResult score of 1.5',
      {
        given: { ...finishAction, critic_result: { score: 1.5, message: null } },
        explain: 'CriticResult',
        at: ['critic_result'],
        want: [{ instancePath: '/score', keyword: 'maximum', params: { comparison: '<=', limit: 1 } }],
      },
    ],
    [
      'a CriticResult score below 0',
      {
        given: { ...userMessage, critic_result: { score: -0.01, message: 'no' } },
        explain: 'CriticResult',
        at: ['critic_result'],
        want: [{ instancePath: '/score', keyword: 'minimum', params: { comparison: '>=', limit: 0 } }],
      },
    ],
    [
      'a CriticResult without its required message',
      {
        given: { ...userMessage, critic_result: { score: 0.5 } },
        explain: 'CriticResult',
        at: ['critic_result'],
        want: [{ instancePath: '', keyword: 'required', params: { missingProperty: 'message' } }],
      },
    ],
    [
      'a Condensation summary_offset of -1',
      {
        given: { ...condensation, summary_offset: -1 },
        explain: 'Condensation',
        want: [{ instancePath: '/summary_offset', keyword: 'minimum', params: { comparison: '>=', limit: 0 } }],
      },
    ],
    [
      'a Condensation summary_offset that is not an integer',
      {
        given: { ...condensation, summary_offset: 2.5 },
        explain: 'Condensation',
        want: [{ instancePath: '/summary_offset', keyword: 'type', params: { type: ['integer', 'null'] } }],
      },
    ],
    [
      'an unknown property on a closed Action kind (FinishAction)',
      {
        given: { ...finishAction, action: { kind: 'FinishAction', message: 'Done.', outcome: 'success' } },
        explain: 'FinishAction',
        at: ['action'],
        want: [{ instancePath: '', keyword: 'additionalProperties', params: { additionalProperty: 'outcome' } }],
      },
    ],
    [
      'a negative BrowserClickAction index',
      {
        given: { ...terminalAction, action: { kind: 'BrowserClickAction', index: -1 } },
        explain: 'BrowserClickAction',
        at: ['action'],
        want: [{ instancePath: '/index', keyword: 'minimum', params: { comparison: '>=', limit: 0 } }],
      },
    ],
    [
      'a BrowserTypeAction without text (an open kind still has its required fields)',
      {
        given: { ...terminalAction, action: { kind: 'BrowserTypeAction', index: 3 } },
        explain: 'BrowserTypeAction',
        at: ['action'],
        want: [{ instancePath: '', keyword: 'required', params: { missingProperty: 'text' } }],
      },
    ],
    [
      'a tool call with an unknown origin',
      {
        given: { ...terminalAction, tool_call: { ...terminalAction.tool_call, origin: 'assistants' } },
        explain: 'MessageToolCall',
        at: ['tool_call'],
        want: [{ instancePath: '/origin', keyword: 'enum', params: { allowedValues: ['completion', 'responses'] } }],
      },
    ],
    [
      'a message role outside user, system, assistant, tool',
      {
        given: { ...userMessage, llm_message: { ...userMessage.llm_message, role: 'developer' } },
        explain: 'Message',
        at: ['llm_message'],
        want: [{ instancePath: '/role', keyword: 'enum', params: { allowedValues: ['user', 'system', 'assistant', 'tool'] } }],
      },
    ],
    [
      'a TextContent of another type',
      {
        given: { ...systemPrompt, system_prompt: { type: 'image', text: 'x' } },
        explain: 'TextContent',
        at: ['system_prompt'],
        want: [{ instancePath: '/type', keyword: 'const', params: { allowedValue: 'text' } }],
      },
    ],
    [
      'a token id that is not an integer',
      {
        given: { ...tokenEvent, prompt_token_ids: [151644, 8948.5] },
        explain: 'TokenEvent',
        want: [{ instancePath: '/prompt_token_ids/1', keyword: 'type', params: { type: 'integer' } }],
      },
    ],
    [
      'an ObservationEvent without its observation',
      {
        given: without(terminalObservation, 'observation'),
        explain: 'ObservationEvent',
        want: [{ instancePath: '', keyword: 'required', params: { missingProperty: 'observation' } }],
      },
    ],
  ];

  test.each(cases)('%s', (_name, { given, explain, at = [], want }) => {
    expect(validateEvent(given)).toBe(false);
    expect(validationErrors(componentValidator(ajv, explain), valueAt(given, at))).toEqual(want);
  });
});

describe('events of a wrong kind', () => {
  const cases: Array<[string, { given: unknown; explain: string }]> = [
    ['a kind that is not an event kind', { given: { ...userMessage, kind: 'MessageEvents' }, explain: 'MessageEvent' }],
    ['a kind in lower case', { given: { ...pause, kind: 'pauseevent' }, explain: 'PauseEvent' }],
    ['the fully qualified class path as kind', { given: { ...pause, kind: 'openhands.sdk.event.user_action.PauseEvent' }, explain: 'PauseEvent' }],
  ];

  test.each(cases)('%s is no member of Event, and only its kind is wrong', (_name, { given, explain }) => {
    expect(validateEvent(given)).toBe(false);
    expect(SEED_EVENT_KINDS.filter((kind) => componentValidator(ajv, kind)(given))).toEqual([]);
    expect(validationErrors(componentValidator(ajv, explain), given).map((error) => error.instancePath)).toEqual(['/kind']);
  });
});

describe('accepted events beyond the examples', () => {
  const cases: Array<[string, { given: unknown }]> = [
    [
      'an unknown property on an open helper (TextContent)',
      { given: { ...userMessage, extended_content: [{ type: 'text', text: 'Skill: python-testing', enable_truncation: true }] } },
    ],
    [
      'an unknown property on an open helper (MessageToolCall, responses_item_id of newer servers)',
      { given: { ...terminalAction, tool_call: { ...terminalAction.tool_call, responses_item_id: 'fc_68a1f0c2d3e4b5a8' } } },
    ],
    [
      'arbitrary properties on an open Action kind (TerminalAction)',
      { given: { ...terminalAction, action: { kind: 'TerminalAction', command: 'ls', anything: { nested: [1, null, 'x'] } } } },
    ],
    ['an open Action kind with only its kind (TaskTrackerAction)', { given: { ...terminalAction, action: { kind: 'TaskTrackerAction' } } }],
    [
      'arbitrary properties on an open Observation kind (GrepObservation)',
      { given: { ...terminalObservation, observation: { kind: 'GrepObservation', matches: ['a.py:3:x'], truncated: false } } },
    ],
    ['an event with only its required fields (PauseEvent with kind alone)', { given: { kind: 'PauseEvent' } }],
    ['a timestamp in any string format', { given: { ...pause, timestamp: '2026-06-16T05:43:30+02:00' } }],
    ['a state update whose value is null', { given: { kind: 'ConversationStateUpdateEvent', key: 'agent_status', value: null } }],
    ['a CriticResult score at the bounds 0 and 1', { given: { ...finishAction, critic_result: { score: 0, message: null, metadata: null } } }],
  ];

  test.each(cases)('%s', (_name, { given }) => {
    expect(validationErrors(validateEvent, given)).toEqual([]);
  });
});

describe('EventPage', () => {
  const validatePage = componentValidator(ajv, 'EventPage');
  const cases: Array<[string, { given: unknown; want: ErrorSummary[] }]> = [
    ['the last page, next_page_id null', { given: { items: [pause], next_page_id: null }, want: [] }],
    ['a page without next_page_id', { given: { items: [] }, want: [] }],
    [
      'a page without items',
      { given: { next_page_id: null }, want: [{ instancePath: '', keyword: 'required', params: { missingProperty: 'items' } }] },
    ],
    [
      'a page with an unknown property',
      {
        given: { items: [], next_page_id: null, total: 0 },
        want: [{ instancePath: '', keyword: 'additionalProperties', params: { additionalProperty: 'total' } }],
      },
    ],
    [
      'a page whose next_page_id is a number',
      { given: { items: [], next_page_id: 7 }, want: [{ instancePath: '/next_page_id', keyword: 'type', params: { type: ['string', 'null'] } }] },
    ],
  ];

  test.each(cases)('%s', (_name, { given, want }) => {
    expect(validationErrors(validatePage, given)).toEqual(want);
  });
});

describe('search parameter schemas', () => {
  const cases: Array<[string, { parameter: string; given: unknown; valid: boolean }]> = [
    ['limit 1', { parameter: 'limit', given: 1, valid: true }],
    ['limit 100', { parameter: 'limit', given: 100, valid: true }],
    ['limit 0', { parameter: 'limit', given: 0, valid: false }],
    ['limit 101', { parameter: 'limit', given: 101, valid: false }],
    ['limit 1.5', { parameter: 'limit', given: 1.5, valid: false }],
    ['limit "5" (a string, uncoerced)', { parameter: 'limit', given: '5', valid: false }],
    ['sort_order TIMESTAMP_DESC', { parameter: 'sort_order', given: 'TIMESTAMP_DESC', valid: true }],
    ['sort_order BAD', { parameter: 'sort_order', given: 'BAD', valid: false }],
    ['page_id null', { parameter: 'page_id', given: null, valid: true }],
    ['conversation_id hyphenated', { parameter: 'conversation_id', given: '8f1a2b3c-4d5e-4f70-8192-a3b4c5d6e7f8', valid: true }],
    ['conversation_id not-a-uuid', { parameter: 'conversation_id', given: 'not-a-uuid', valid: false }],
    ['timestamp__gte with a zone', { parameter: 'timestamp__gte', given: '2024-02-29T00:00:00Z', valid: true }],
    ['timestamp__gte null', { parameter: 'timestamp__gte', given: null, valid: true }],
    [
      'timestamp__gte on a day that does not exist (formats in full mode)',
      { parameter: 'timestamp__gte', given: '2024-02-30T00:00:00Z', valid: false },
    ],
    ['timestamp__lt garbage', { parameter: 'timestamp__lt', given: 'garbage', valid: false }],
  ];

  test.each(cases)('%s', (_name, { parameter, given, valid }) => {
    expect(searchParameterValidator(ajv, parameter, document)(given)).toBe(valid);
  });
});

function without<T extends object, K extends keyof T>(value: T, key: K): Omit<T, K> {
  const copy = { ...value };
  delete copy[key];
  return copy;
}

function valueAt(value: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((current, key) => (current as Record<string, unknown>)[key], value);
}

/** The JSON pointers at which two JSON values differ: the deepest objects whose keys or values differ. */
function differences(want: unknown, got: unknown, pointer = ''): string[] {
  if (JSON.stringify(want) === JSON.stringify(got)) return [];
  const bothObjects = typeof want === 'object' && want !== null && typeof got === 'object' && got !== null;
  if (!bothObjects || Array.isArray(want) !== Array.isArray(got)) return [pointer];
  const keys = [...new Set([...Object.keys(want), ...Object.keys(got)])];
  const wantRecord = want as Record<string, unknown>;
  const gotRecord = got as Record<string, unknown>;
  const changedKeys = keys.filter((key) => JSON.stringify(wantRecord[key]) !== JSON.stringify(gotRecord[key]));
  if (changedKeys.some((key) => !(key in wantRecord) || !(key in gotRecord))) return [pointer];
  return changedKeys.flatMap((key) => differences(wantRecord[key], gotRecord[key], `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`));
}
