import { eventKindNames, loadOpenApiDocument, type Event } from '../../src/contract';
import { DEFAULT_SOURCE, EVENT_KINDS, QUALIFIED_KIND, kindOfFilterValue, searchableText } from '../../src/search';
import { action, agentError, conversationError, eventId, message, observation, pause, stateUpdate } from '../support/events';

const stamp = { id: eventId(1), timestamp: '2026-06-16T05:39:48.701247' };

describe('searchableText: what a body filter searches (docs/reference-behaviour.md, "Search")', () => {
  const cases: Array<[string, { given: Event; want: string | undefined }]> = [
    [
      'the text parts of the content, lower-cased',
      { given: message({ ...stamp, source: 'user' }, { text: ['Fix The BUG', 'Please'] }), want: 'fix the bug please' },
    ],
    [
      'content, then extended_content, then reasoning_content, joined with single spaces',
      {
        given: message({ ...stamp, source: 'agent' }, { text: ['Content'], extended: ['Extra one', 'Extra two'], reasoning: 'Thinking' }),
        want: 'content extra one extra two thinking',
      },
    ],
    ['extended_content alone', { given: message({ ...stamp, source: 'user' }, { extended: ['<REPOSITORY_INFO>'] }), want: '<repository_info>' }],
    ['reasoning_content alone', { given: message({ ...stamp, source: 'agent' }, { reasoning: 'Hidden Reasoning' }), want: 'hidden reasoning' }],
    ['a null reasoning_content adds nothing', { given: message({ ...stamp, source: 'agent' }, { text: ['Hi'], reasoning: null }), want: 'hi' }],
    [
      'an image part stands as [Image: N URLs]',
      { given: message({ ...stamp, source: 'user' }, { text: ['Look'], images: [2] }), want: 'look [image: 2 urls]' },
    ],
    ['an image part with one URL', { given: message({ ...stamp, source: 'user' }, { images: [1] }), want: '[image: 1 urls]' }],
    ['a message with nothing to search', { given: message({ ...stamp, source: 'user' }), want: '' }],
    ['an ActionEvent thought is not searched', { given: action(stamp, 'Bug hunting'), want: undefined }],
    ['an ObservationEvent is not searched', { given: observation(stamp, 'bug found'), want: undefined }],
    ['an AgentErrorEvent is not searched', { given: agentError(stamp, 'bug'), want: undefined }],
    ['a ConversationErrorEvent is not searched', { given: conversationError({ ...stamp, source: 'environment' }, 'bug'), want: undefined }],
    ['a PauseEvent is not searched', { given: pause(stamp), want: undefined }],
    ['a ConversationStateUpdateEvent is not searched', { given: stateUpdate(stamp, 'bug', 'bug'), want: undefined }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(searchableText(given)).toBe(want);
  });
});

describe('kinds', () => {
  it('every kind is found by its short name and by its class path', () => {
    for (const kind of EVENT_KINDS) {
      expect(kindOfFilterValue(kind)).toBe(kind);
      expect(kindOfFilterValue(QUALIFIED_KIND[kind])).toBe(kind);
    }
    expect(EVENT_KINDS).toHaveLength(14);
  });

  it.each([
    ['a class path', 'openhands.sdk.event.llm_convertible.message.MessageEvent', 'MessageEvent'],
    ['another module', 'openhands.sdk.event.user_action.PauseEvent', 'PauseEvent'],
    ['a wrong module', 'openhands.sdk.event.message.MessageEvent', undefined],
    ['lower case', 'messageevent', undefined],
    ['an action kind is not an event kind', 'ThinkAction', undefined],
    ['empty', '', undefined],
    ['an inherited property name', 'constructor', undefined],
  ])('kindOfFilterValue: %s', (_name, given, want) => {
    expect(kindOfFilterValue(given)).toBe(want);
  });

  it('the default sources are the ones the contract declares for each kind', () => {
    const schemas = loadOpenApiDocument().components.schemas as Record<string, { properties: { source: { default?: string } } }>;
    const declared = Object.fromEntries(eventKindNames().map((kind) => [kind, schemas[kind]!.properties.source.default]));
    expect(DEFAULT_SOURCE).toEqual(declared);
  });
});
