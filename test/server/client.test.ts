import { AgentServerError, createAgentServerClient } from '../../src/client';
import type { Event } from '../../src/contract';
import { generateConversation } from '../../src/fixture';
import { conversationId } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { pageBody, searchOrder } from '../support/search-requests';

/* The typed client (src/client) against the running server: values for one page, an iterator for all. */
const CONVERSATION = conversationId(60);
const MISSING = conversationId(61);
const EVENTS = generateConversation({ events: 45, seed: 'client' });
const ORDERED = searchOrder(EVENTS);

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer([{ id: CONVERSATION, events: EVENTS }]);
});
afterAll(() => server.stop());

async function collect(events: AsyncIterable<Event>): Promise<Event[]> {
  const items: Event[] = [];
  for await (const event of events) items.push(event);
  return items;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('searchEvents returns one page as a value', () => {
  it('ok: the page and the response', async () => {
    const result = await server.client.searchEvents(CONVERSATION, { limit: 10, sort_order: 'TIMESTAMP_DESC' });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.page).toEqual(pageBody(searchOrder(EVENTS, 'TIMESTAMP_DESC').slice(0, 10), searchOrder(EVENTS, 'TIMESTAMP_DESC')[10]!.id));
    expect(result.response.status).toBe(200);
  });

  it('items are typed by kind', async () => {
    const result = await server.client.searchEvents(CONVERSATION, { kind: 'MessageEvent' });
    if (!result.ok) throw result.error;
    const roles = result.page.items.map((event) => (event.kind === 'MessageEvent' ? event.llm_message.role : 'not a message'));
    expect(roles).toEqual(
      ORDERED.filter((event) => event.kind === 'MessageEvent').map((event) => (event.kind === 'MessageEvent' ? event.llm_message.role : '')),
    );
    expect(roles.length).toBeGreaterThan(0);
  });

  it('accepts the 32-hex form of the id', async () => {
    const result = await server.client.searchEvents(CONVERSATION.replaceAll('-', ''), { limit: 1 });
    expect(result.ok && result.page).toEqual(pageBody(ORDERED.slice(0, 1), ORDERED[1]!.id));
  });

  it('404: an AgentServerError with the status and the detail, not a throw', async () => {
    const result = await server.client.searchEvents(MISSING.replaceAll('-', '').toUpperCase());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toBeInstanceOf(AgentServerError);
    expect({ status: result.error.status, detail: result.error.detail, validationErrors: result.error.validationErrors }).toEqual({
      status: 404,
      detail: `Conversation not found: ${MISSING}`,
      validationErrors: [],
    });
    expect(result.error.message).toBe(`404 from ${result.error.url}: Conversation not found: ${MISSING}`);
    expect(result.response.status).toBe(404);
  });

  it('422: the validation errors, whole', async () => {
    const result = await server.client.searchEvents(CONVERSATION, { limit: 0, timestamp__lt: 'garbage' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const detail = [
      { type: 'greater_than', loc: ['query', 'limit'], msg: 'Input should be greater than 0', input: '0', ctx: { gt: 0 } },
      {
        type: 'datetime_from_date_parsing',
        loc: ['query', 'timestamp__lt'],
        msg: 'Input should be a valid datetime or date, input is too short',
        input: 'garbage',
        ctx: { error: 'input is too short' },
      },
    ];
    expect({ status: result.error.status, detail: result.error.detail, validationErrors: result.error.validationErrors }).toEqual({
      status: 422,
      detail,
      validationErrors: detail,
    });
    expect(result.error.message).toContain(
      'query.limit: Input should be greater than 0; query.timestamp__lt: Input should be a valid datetime or date',
    );
  });

  it('a value outside the contract is a type error, and the server refuses it too', async () => {
    // @ts-expect-error sort_order is 'TIMESTAMP' | 'TIMESTAMP_DESC'
    const result = await server.client.searchEvents(CONVERSATION, { sort_order: 'BAD' });
    expect(!result.ok && { status: result.error.status, types: result.error.validationErrors.map((item) => item.type) }).toEqual({
      status: 422,
      types: ['enum'],
    });
  });
});

describe('iterateEvents and listEvents walk every page', () => {
  it.each([1, 7, 100])('limit %i: every event once, in order', async (limit) => {
    expect(await collect(server.client.iterateEvents(CONVERSATION, { limit }))).toEqual(ORDERED);
  });

  it('repeats the filters on every page', async () => {
    const want = searchOrder(EVENTS, 'TIMESTAMP_DESC').filter((event) => event.source === 'agent');
    expect(await server.client.listEvents(CONVERSATION, { source: 'agent', sort_order: 'TIMESTAMP_DESC', limit: 4 })).toEqual(want);
    expect(want.length).toBeGreaterThan(8);
  });

  it('an empty result is an empty walk', async () => {
    expect(await server.client.listEvents(CONVERSATION, { kind: 'NoSuchKind' })).toEqual([]);
  });

  it('throws an AgentServerError for a 404', async () => {
    const error = await rejection(collect(server.client.iterateEvents(MISSING)));
    expect(error).toBeInstanceOf(AgentServerError);
    expect({ status: (error as AgentServerError).status, detail: (error as AgentServerError).detail }).toEqual({
      status: 404,
      detail: `Conversation not found: ${MISSING}`,
    });
  });

  it('throws an AgentServerError for a 422', async () => {
    const error = await rejection(server.client.listEvents(CONVERSATION, { limit: 101 }));
    expect(error).toBeInstanceOf(AgentServerError);
    expect({ status: (error as AgentServerError).status, detail: (error as AgentServerError).detail }).toEqual({
      status: 422,
      detail: [
        { type: 'less_than_equal', loc: ['query', 'limit'], msg: 'Input should be less than or equal to 100', input: '101', ctx: { le: 100 } },
      ],
    });
  });

  it('a base URL with a trailing slash works the same', async () => {
    const client = createAgentServerClient({ baseUrl: `${server.url}/` });
    expect(await client.listEvents(CONVERSATION, { limit: 50 })).toEqual(ORDERED);
  });
});

describe('against a server that requires a session key', () => {
  let keyed: LiveServer;
  beforeAll(async () => {
    keyed = await startLiveServer([{ id: CONVERSATION, events: EVENTS }], { sessionApiKeys: ['client-test-key'] });
  });
  afterAll(() => keyed.stop());

  it('the configured key is sent and accepted', async () => {
    expect(await keyed.client.listEvents(CONVERSATION)).toEqual(ORDERED);
  });

  it('without the key: a 401 AgentServerError', async () => {
    const result = await createAgentServerClient({ baseUrl: keyed.url }).searchEvents(CONVERSATION);
    expect(!result.ok && { status: result.error.status, detail: result.error.detail }).toEqual({ status: 401, detail: 'Unauthorized' });
    const error = await rejection(createAgentServerClient({ baseUrl: keyed.url, sessionApiKey: 'wrong' }).listEvents(CONVERSATION));
    expect(error instanceof AgentServerError && { status: error.status, detail: error.detail }).toEqual({ status: 401, detail: 'Unauthorized' });
  });
});
