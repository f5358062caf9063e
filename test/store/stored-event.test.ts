/**
 * What is served of one stored event a newer agent server wrote (stored-event.ts), and
 * the walk that removes what the contract does not list, compiled from the contract
 * itself (unlisted-properties.ts).
 */
import type { OpenApiDocument } from '../../src/contract';
import { decodeStoredEvent } from '../../src/store/stored-event/decide';
import { compileUnlistedPropertyPruner } from '../../src/store/stored-event/unlisted-properties';

const TOOL_CALL = { id: 'call_1', name: 'finish', arguments: '{}', origin: 'completion' };
const actionEvent = (extra: Record<string, unknown> = {}, action: Record<string, unknown> = { kind: 'FinishAction', message: 'done' }) => ({
  id: 'a1',
  timestamp: '2026-06-16T05:39:48.701247',
  source: 'agent',
  thought: [{ type: 'text', text: 'finishing', something_new: 1 }],
  action,
  tool_name: 'finish',
  tool_call_id: 'call_1',
  tool_call: TOOL_CALL,
  llm_response_id: 'r1',
  ...extra,
  kind: 'ActionEvent',
});

const decode = (value: unknown, mode?: 'contract' | 'as-stored') => decodeStoredEvent(Buffer.from(JSON.stringify(value)), mode);

describe('a stored event of a kind the contract has', () => {
  it('is served as stored, the same bytes, when it holds nothing the contract does not list', () => {
    const bytes = Buffer.from(`  ${JSON.stringify(actionEvent())}\n`);
    const decided = decodeStoredEvent(bytes);
    expect(decided).toMatchObject({ served: true, unlisted: [] });
    expect(decided.served && decided.payload.buffer).toBe(bytes.buffer);
    expect(decided.served && decided.payload.toString()).toBe(JSON.stringify(actionEvent()));
  });

  it('is served without the properties closed objects do not list, at every level, and open objects keep theirs', () => {
    const decided = decode(actionEvent({ parent_id: 'p0' }, { kind: 'FinishAction', message: 'done', urgency: 'high' }));
    expect(decided).toMatchObject({ served: true, unlisted: ['action.urgency', 'parent_id'] });
    const served = decided.served ? JSON.parse(decided.payload.toString()) : undefined;
    expect(served).toEqual(actionEvent());
    // TextContent is open in the contract, so its extra property stays.
    expect(served.thought[0].something_new).toBe(1);
    expect(Object.keys(served).at(-1)).toBe('kind');
  });

  it('keeps the stored bytes in as-stored mode, and still names what the contract does not list', () => {
    const stored = actionEvent({ parent_id: 'p0' });
    const decided = decode(stored, 'as-stored');
    expect(decided).toMatchObject({ served: true, unlisted: ['parent_id'] });
    expect(decided.served && decided.payload.toString()).toBe(JSON.stringify(stored));
  });

  it.each([
    [
      'ObservationEvent.extended_content',
      {
        id: 'o1',
        source: 'environment',
        tool_name: 'finish',
        tool_call_id: 'c',
        observation: { kind: 'FinishObservation', content: [] },
        action_id: 'a1',
        extended_content: [],
        parent_id: 'a1',
        kind: 'ObservationEvent',
      },
      ['extended_content', 'parent_id'],
    ],
    [
      'AgentErrorEvent.classification',
      {
        id: 'e1',
        source: 'agent',
        tool_name: 't',
        tool_call_id: 'c',
        error: 'bad',
        classification: { kind: 'agent_action', retryable: true, user_action: 'retry' },
        kind: 'AgentErrorEvent',
      },
      ['classification'],
    ],
    [
      'ConversationErrorEvent.classification',
      {
        id: 'e2',
        source: 'environment',
        code: 'X',
        detail: 'y',
        classification: { kind: 'internal', retryable: false },
        kind: 'ConversationErrorEvent',
      },
      ['classification'],
    ],
  ])('serves %s with the addition removed', (_name, event, unlisted) => {
    const decided = decode(event);
    expect(decided).toMatchObject({ served: true, unlisted });
    for (const name of unlisted) expect(decided.served && JSON.parse(decided.payload.toString())).not.toHaveProperty(name);
  });

  it('is still skipped as broken when a field the contract knows breaks it, with or without unlisted properties', () => {
    expect(decode(actionEvent({ parent_id: 'p0', tool_name: 7 }))).toEqual({
      served: false,
      because: 'broken',
      reason: 'does not match the contract at /tool_name: must be string',
    });
    expect(decode(actionEvent({ tool_name: 7 }), 'as-stored')).toMatchObject({ served: false, because: 'broken' });
  });
});

describe('what a newer server wrote that the contract has no word for', () => {
  it.each([
    [
      'HookExecutionEvent',
      { source: 'hook', hook_event_type: 'PreToolUse', hook_command: 'x', success: true, exit_code: 0, kind: 'HookExecutionEvent' },
    ],
    ['InterruptEvent', { source: 'user', kind: 'InterruptEvent' }],
    ['StreamingDeltaEvent', { kind: 'StreamingDeltaEvent' }],
  ])('a %s is not served, because of its kind', (kind, event) => {
    expect(decode(event)).toEqual({ served: false, because: 'unknown-kind', kind });
    expect(decode(event, 'as-stored')).toEqual({ served: false, because: 'unknown-kind', kind });
  });

  it('an event holding a value outside an enum is not served, and the value is named when it is a plain word', () => {
    expect(decode({ source: 'hook', kind: 'PauseEvent' })).toEqual({ served: false, because: 'unknown-value', value: 'source = "hook"' });
    expect(decode(actionEvent({}, { kind: 'TeleportAction' }))).toEqual({
      served: false,
      because: 'unknown-value',
      value: 'action.kind = "TeleportAction"',
    });
    expect(decode(actionEvent({ security_risk: 'sk-live secret value!' }))).toEqual({
      served: false,
      because: 'unknown-value',
      value: 'security_risk = a value the contract does not list',
    });
  });
});

describe('the walk compiled from a contract', () => {
  const documentWith = (schemas: Record<string, unknown>): OpenApiDocument => ({
    openapi: '3.1.0',
    paths: {},
    components: { schemas: schemas as OpenApiDocument['components']['schemas'] },
  });
  const node = {
    type: 'object',
    unevaluatedProperties: false,
    allOf: [{ properties: { inherited: { type: 'string' } } }],
    properties: {
      kind: { const: 'Node' },
      children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
      meta: { anyOf: [{ $ref: '#/components/schemas/Closed' }, { type: 'null' }] },
    },
  };
  const contract = documentWith({
    Event: { oneOf: [{ $ref: '#/components/schemas/Node' }], discriminator: { propertyName: 'kind' } },
    Node: node,
    Closed: { type: 'object', additionalProperties: false, properties: { a: { type: 'string' } }, patternProperties: { '^x-': {} } },
  });

  it('follows unevaluatedProperties, allOf, recursion, nullable unions and pattern properties', () => {
    const pruner = compileUnlistedPropertyPruner(contract);
    const event = {
      kind: 'Node',
      inherited: 'kept',
      extra: 1,
      meta: { a: 'kept', b: 2, 'x-ok': 3 },
      children: [{ kind: 'Node', deep: true, children: [] }],
    };
    expect(pruner.prune(event)).toEqual({
      removed: ['children[].deep', 'extra', 'meta.b'],
      event: { kind: 'Node', inherited: 'kept', meta: { a: 'kept', 'x-ok': 3 }, children: [{ kind: 'Node', children: [] }] },
    });
    expect(pruner.ambiguousUnions).toEqual([]);
  });

  it('names a union it cannot resolve, and leaves such values as stored', () => {
    const pruner = compileUnlistedPropertyPruner(
      documentWith({
        Event: { oneOf: [{ $ref: '#/components/schemas/Holder' }], discriminator: { propertyName: 'kind' } },
        Holder: {
          type: 'object',
          properties: { kind: { const: 'Holder' }, either: { anyOf: [{ $ref: '#/components/schemas/Closed' }, { type: 'object' }] } },
        },
        Closed: { type: 'object', additionalProperties: false, properties: { a: { type: 'string' } } },
      }),
    );
    const event = { kind: 'Holder', either: { a: 'x', b: 'y' } };
    expect(pruner.prune(event)).toEqual({ removed: [], event: { kind: 'Holder', either: { a: 'x', b: 'y' } } });
    expect(pruner.ambiguousUnions).toEqual(['Event|0.either']);
  });

  it('finds no such union in our contract', () => {
    expect(compileUnlistedPropertyPruner().ambiguousUnions).toEqual([]);
  });
});
