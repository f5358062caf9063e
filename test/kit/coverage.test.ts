import { createAgentServerClient } from '../../src/client';
import { renderJson, renderText } from '../../src/kit/run/report';
import type { RunResult } from '../../src/kit/run/run';
import { startOurServer, type OurServer } from './support/our-server';
import { runKit } from './support/run-kit';

/* The coverage a known run reports: what it exercised of the contract, and what it did not. */
let ours: OurServer;
let result: RunResult;
let kindsInConversation: string[];
beforeAll(async () => {
  ours = await startOurServer({ events: 80, seed: 'kit-coverage' });
  const events = await createAgentServerClient({ baseUrl: ours.url }).listEvents(ours.conversationId);
  kindsInConversation = [...new Set(events.map((event) => event.kind))].sort();
  // Discovery (one page, limit=100), an unknown conversation (404) and limit=0 (422); nothing else.
  result = await runKit({
    baseUrl: ours.url,
    conversationId: ours.conversationId,
    levels: ['seed'],
    only: ['errors.not-found', 'errors.limit-below-min'],
  });
});
afterAll(() => ours.stop());

const ALL_KINDS = 14;

it('per operation: requests, declared statuses seen and not seen, parameters exercised, event kinds met', () => {
  const operation = (operationId: string) => result.coverage!.operations.find((candidate) => candidate.operationId === operationId);
  const [search, count, getEvent] = [operation('searchConversationEvents'), operation('countConversationEvents'), operation('getConversationEvent')];
  expect(search).toMatchObject({
    operationId: 'searchConversationEvents',
    requests: 3,
    statusesSeen: ['200', '404', '422'],
    statusesNotSeen: ['401', '500', '503'],
    undeclaredStatuses: [],
    parametersExercised: ['conversation_id', 'limit'],
    parametersNotExercised: ['page_id', 'kind', 'source', 'body', 'sort_order', 'timestamp__gte', 'timestamp__lt'],
  });
  expect([...search!.kindsSeen!].sort()).toEqual(kindsInConversation);
  expect(search!.kindsSeen!.length + search!.kindsNotSeen!.length).toBe(ALL_KINDS);
  expect(count).toMatchObject({
    operationId: 'countConversationEvents',
    requests: 0,
    statusesSeen: [],
    statusesNotSeen: ['200', '401', '404', '422', '500', '503'],
    parametersExercised: [],
  });
  expect(count).not.toHaveProperty('kindsSeen');
  expect(getEvent).toMatchObject({ operationId: 'getConversationEvent', requests: 0, kindsSeen: [] });
  expect(getEvent!.kindsNotSeen).toHaveLength(ALL_KINDS);
  expect(result.coverage!.unmatchedRequests).toBe(0);
});

it('the text report lists it, the never-exercised included', () => {
  const text = renderText(result);
  expect(text).toContain('Coverage of the contract:');
  const searchAt = result.coverage!.operations.findIndex((candidate) => candidate.operationId === 'searchConversationEvents');
  expect(JSON.parse(renderJson(result))).toHaveProperty(`coverage.operations.${searchAt}.statusesNotSeen`, ['401', '500', '503']);
  expect(text).toContain('  searchConversationEvents (GET /api/conversations/{conversation_id}/events/search): 3 requests');
  expect(text).toContain('    statuses seen: 200, 404, 422; not seen: 401, 500');
  expect(text).toContain(
    '    parameters exercised: conversation_id, limit; not exercised: page_id, kind, source, body, sort_order, timestamp__gte, timestamp__lt',
  );
  expect(text).toContain('  countConversationEvents (GET /api/conversations/{conversation_id}/events/count): 0 requests');
  expect(text).toMatch(/ {4}event kinds met: none; never met: \w+(, \w+){13}\n/);
});
