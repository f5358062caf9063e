/**
 * Type-level proofs about the generated types: what the compiler must reject carries a
 * `// @ts-expect-error TS<code>` directly above the offending line. Each test also checks at
 * run time that the JSON Schema judges the same value the same way.
 *
 * jest does not type-check here: ts-jest transpiles file by file because tsconfig.json sets
 * `isolatedModules`. So the last tests compile this file with the TypeScript compiler API:
 * once as written (no diagnostics, so every directive is used), and once with the directives
 * turned into plain comments (an error of the named code on each line below a directive).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import {
  eventKindNames,
  loadOpenApiDocument,
  type Action,
  type Event,
  type EventKind,
  type EventOfKind,
  type EventPage,
  type EventSource,
  type SearchQuery,
} from '../../src/contract';
import { componentValidator, createContractAjv, searchParameterValidator } from './contract-schema';
import { EXAMPLE_EVENTS, agentMessage, pause, terminalAction, userMessage } from './examples';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

type SeedEventKind =
  | 'Condensation'
  | 'CondensationRequest'
  | 'CondensationSummaryEvent'
  | 'ConversationErrorEvent'
  | 'ConversationStateUpdateEvent'
  | 'LLMCompletionLogEvent'
  | 'ActionEvent'
  | 'MessageEvent'
  | 'AgentErrorEvent'
  | 'ObservationEvent'
  | 'UserRejectObservation'
  | 'SystemPromptEvent'
  | 'TokenEvent'
  | 'PauseEvent';

const document = loadOpenApiDocument();
const ajv = createContractAjv(document);
const validateEvent = componentValidator(ajv, 'Event');

describe('values the compiler rejects, and the schema too', () => {
  test('an Event with a wrong kind literal', () => {
    const wrongKind: Event = {
      source: 'user',
      // @ts-expect-error TS2820 'MessageEvents' is not an event kind
      kind: 'MessageEvents',
      llm_message: { role: 'user', content: [{ text: 'hi' }] },
    };
    expect(validateEvent(wrongKind)).toBe(false);
  });

  test('limit "5" in a SearchQuery', () => {
    const query: SearchQuery = {
      // @ts-expect-error TS2322 limit is a number
      limit: '5',
    };
    expect(searchParameterValidator(ajv, 'limit', document)(query.limit)).toBe(false);
  });

  test('sort_order "BAD" in a SearchQuery', () => {
    const query: SearchQuery = {
      // @ts-expect-error TS2322 sort_order is TIMESTAMP or TIMESTAMP_DESC
      sort_order: 'BAD',
    };
    expect(searchParameterValidator(ajv, 'sort_order', document)(query.sort_order)).toBe(false);
  });

  test('an unknown property on a closed Action kind (FinishAction)', () => {
    const action: Action = {
      kind: 'FinishAction',
      message: 'Done.',
      // @ts-expect-error TS2353 FinishAction has no outcome
      outcome: 'success',
    };
    expect(validateEvent({ ...terminalAction, action })).toBe(false);
  });

  test('an EventPage without items', () => {
    // @ts-expect-error TS2741 items is required
    const page: EventPage = { next_page_id: null };
    expect(componentValidator(ajv, 'EventPage')(page)).toBe(false);
  });
});

describe('values the compiler accepts, and the schema too', () => {
  test('arbitrary properties on an open Action kind (TerminalAction)', () => {
    const action: Action = { kind: 'TerminalAction', command: 'ls -la', is_input: false, anything: { nested: true } };
    expect(validateEvent({ ...terminalAction, action })).toBe(true);
  });

  test('action null on an ActionEvent', () => {
    const event: Event = { ...terminalAction, action: null };
    expect(validateEvent(event)).toBe(true);
  });
});

describe('narrowing on kind', () => {
  /** The message role of a MessageEvent; other kinds have no message. */
  function roleOf(event: Event): string | undefined {
    switch (event.kind) {
      case 'MessageEvent': {
        const narrowed: Equal<typeof event, EventOfKind<'MessageEvent'>> = true;
        return narrowed ? event.llm_message.role : undefined;
      }
      case 'ActionEvent':
        // @ts-expect-error TS2339 an ActionEvent has no llm_message
        return event.llm_message?.role;
      default:
        return undefined;
    }
  }

  test('a switch on kind gives each case the fields of its kind, and only those', () => {
    expect([roleOf(userMessage), roleOf(agentMessage), roleOf(terminalAction), roleOf(pause)]).toEqual(['user', 'assistant', undefined, undefined]);
  });

  /** The seed's default source of each kind (section 2.2), or null where source is required. */
  function defaultSource(event: Event): EventSource | null {
    switch (event.kind) {
      case 'Condensation':
      case 'CondensationRequest':
      case 'CondensationSummaryEvent':
      case 'ConversationStateUpdateEvent':
      case 'LLMCompletionLogEvent':
      case 'ObservationEvent':
      case 'UserRejectObservation':
        return 'environment';
      case 'ActionEvent':
      case 'AgentErrorEvent':
      case 'SystemPromptEvent':
        return 'agent';
      case 'PauseEvent':
        return 'user';
      case 'ConversationErrorEvent':
      case 'MessageEvent':
      case 'TokenEvent':
        return null;
      default: {
        const unhandled: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unhandled)}`);
      }
    }
  }

  test('a switch over all 14 kinds is exhaustive (never in default), and agrees with the document', () => {
    const schemas = document.components.schemas as Record<string, { properties: { source: { default?: string } } }>;
    const fromDocument = Object.fromEntries(eventKindNames(document).map((kind) => [kind, schemas[kind]?.properties.source.default ?? null]));
    const fromSwitch = Object.fromEntries(EXAMPLE_EVENTS.map(([, event]) => [event.kind, defaultSource(event)]));
    expect(fromSwitch).toEqual(fromDocument);
  });

  /** Forgets PauseEvent, which the compiler notices at the `never`. */
  function incompleteLabel(event: Event): string {
    switch (event.kind) {
      case 'Condensation':
      case 'CondensationRequest':
      case 'CondensationSummaryEvent':
        return 'condenser';
      case 'ConversationErrorEvent':
      case 'AgentErrorEvent':
        return 'error';
      case 'ConversationStateUpdateEvent':
      case 'LLMCompletionLogEvent':
      case 'TokenEvent':
        return 'telemetry';
      case 'ActionEvent':
      case 'MessageEvent':
      case 'ObservationEvent':
      case 'UserRejectObservation':
      case 'SystemPromptEvent':
        return 'llm';
      default: {
        // @ts-expect-error TS2322 PauseEvent is left over, so event is not never
        const unhandled: never = event;
        return `unhandled: ${(unhandled as Event).kind}`;
      }
    }
  }

  test('a switch that forgets a kind does not compile', () => {
    expect(incompleteLabel(pause)).toBe('unhandled: PauseEvent');
  });

  test('EventKind is exactly the 14 kinds of the seed, as the document lists them', () => {
    const sameKinds: Equal<EventKind, SeedEventKind> = true;
    const seedKinds: Record<SeedEventKind, true> = {
      Condensation: true,
      CondensationRequest: true,
      CondensationSummaryEvent: true,
      ConversationErrorEvent: true,
      ConversationStateUpdateEvent: true,
      LLMCompletionLogEvent: true,
      ActionEvent: true,
      MessageEvent: true,
      AgentErrorEvent: true,
      ObservationEvent: true,
      UserRejectObservation: true,
      SystemPromptEvent: true,
      TokenEvent: true,
      PauseEvent: true,
    };
    expect({ sameKinds, kinds: Object.keys(seedKinds).sort() }).toEqual({ sameKinds: true, kinds: eventKindNames(document).sort() });
  });
});

describe('this file type-checks', () => {
  const DIRECTIVE = /^\s*\/\/ @ts-expect-error\b(?: (TS\d+)\b)?/;
  const thisFile = __filename;
  const text = readFileSync(thisFile, 'utf8');
  const directives = text.split('\n').flatMap((line, index) => {
    const match = DIRECTIVE.exec(line);
    return match ? [{ line: index + 1, code: match[1] ?? 'no code' }] : [];
  });
  const options = projectCompilerOptions();
  const host = ts.createCompilerHost(options);
  const readSourceFile = host.getSourceFile.bind(host);
  const otherFiles = new Map<string, ts.SourceFile | undefined>();
  let sourceOfThisFile = text;
  host.getSourceFile = (fileName, languageVersion, ...rest) => {
    if (path.resolve(fileName) === thisFile) return ts.createSourceFile(fileName, sourceOfThisFile, languageVersion, true);
    if (!otherFiles.has(fileName)) otherFiles.set(fileName, readSourceFile(fileName, languageVersion, ...rest));
    return otherFiles.get(fileName);
  };

  function check(sourceText: string): Array<{ line: number; code: string }> {
    sourceOfThisFile = sourceText;
    const program = ts.createProgram({ rootNames: [thisFile], options, host });
    return ts.getPreEmitDiagnostics(program).map((diagnostic) => ({
      line: diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1 : 0,
      code: `TS${diagnostic.code}`,
      ...(diagnostic.file && path.resolve(diagnostic.file.fileName) !== thisFile ? { file: diagnostic.file.fileName } : {}),
      ...(diagnostic.code === 2578 ? {} : { message: ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ') }),
    }));
  }

  test('as written: no diagnostics, so every @ts-expect-error is used', () => {
    expect(check(text)).toEqual([]);
  });

  test('without the directives: exactly one error, of the named code, on each line below a directive', () => {
    const stripped = text
      .split('\n')
      .map((line) => line.replace(DIRECTIVE, (directive) => directive.replace('@ts-expect-error', '(expected)     ')))
      .join('\n');
    const errors = check(stripped).map(({ line, code }) => ({ line, code }));
    expect(directives.map(({ code }) => code)).toEqual(['TS2820', 'TS2322', 'TS2322', 'TS2353', 'TS2741', 'TS2339', 'TS2322']);
    expect(errors).toEqual(directives.map(({ line, code }) => ({ line: line + 1, code })));
  });
});

function projectCompilerOptions(): ts.CompilerOptions {
  const configPath = path.resolve(__dirname, '../../tsconfig.json');
  const { config, error } = ts.readConfigFile(configPath, (file) => ts.sys.readFile(file));
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, path.dirname(configPath));
  return { ...parsed.options, noEmit: true };
}
