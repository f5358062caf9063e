/**
 * The suite runs the production configuration (responses not validated). This pass runs
 * every operation once more with response validation on, over a conversation of every kind,
 * so a response the contract does not allow fails here as a 500 naming the fault.
 */
import { eventKindNames } from '../../src/contract';
import { generateConversation } from '../../src/fixture';
import { conversationId } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';

const CONVERSATION = conversationId(50);
const EVENTS = generateConversation({ events: 320, seed: 'validated-responses' });

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer([{ id: CONVERSATION, events: EVENTS }], { validateResponses: true });
});
afterAll(() => server.stop());

afterEach(() => {
  expect(server.logs.filter((line) => line.includes('"level":"error"'))).toEqual([]);
});

it('the conversation holds every kind of the contract', () => {
  expect(new Set(EVENTS.map((event) => event.kind))).toEqual(new Set(eventKindNames()));
});

it.each(['TIMESTAMP', 'TIMESTAMP_DESC'] as const)('search pages in %s order conform', async (sortOrder) => {
  expect(await server.client.listEvents(CONVERSATION, { limit: 7, sort_order: sortOrder })).toHaveLength(EVENTS.length);
});

it('count and get-by-id conform for every kind', async () => {
  for (const kind of eventKindNames()) {
    const counted = await server.client.countEvents(CONVERSATION, { kind });
    expect(counted.ok && counted.count).toBe(EVENTS.filter((event) => event.kind === kind).length);
  }
  for (const event of EVENTS) expect((await server.client.getEvent(CONVERSATION, event.id!)).ok).toBe(true);
});

it('the search across stored conversations and its count conform; the export streams beside the validator', async () => {
  const first = await server.get('/api/stored-conversations/events/search?limit=7&kind=ActionEvent');
  expect(first.status).toBe(200);
  const counted = await server.get('/api/stored-conversations/events/count?kind=ActionEvent');
  expect(counted.body).toBe(EVENTS.filter((event) => event.kind === 'ActionEvent').length);
  for (const format of ['jsonl', 'markdown']) {
    expect((await server.get(`/api/stored-conversations/${CONVERSATION}/export?format=${format}`)).status).toBe(200);
  }
});

it.each([
  ['an unknown conversation', `/api/conversations/${conversationId(51)}/events/search`, 404],
  ['an unknown event', `/api/conversations/${CONVERSATION}/events/nothing-here`, 404],
  ['a bad limit', `/api/conversations/${CONVERSATION}/events/search?limit=0`, 422],
  ['a bad count filter', `/api/conversations/${CONVERSATION}/events/count?timestamp__lt=x`, 422],
])('the error for %s conforms', async (_name, pathAndQuery, status) => {
  expect((await server.get(pathAndQuery)).status).toBe(status);
});
