import { generateConversation } from '../../src/fixture';
import { conversationId } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';

/*
 * A page of many pieces (a descending page: no two events lie in order in memory) is joined
 * into one of a few buffers kept for it, and a buffer is reused once its response finished.
 * Many such responses at once must each go out whole and right.
 */
const CONVERSATION = conversationId(50);
const EVENTS = generateConversation({ events: 400, seed: 'joined-pages' });

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer([{ id: CONVERSATION, events: EVENTS }]);
});
afterAll(() => server.stop());

it('answers many descending pages at once, each with its own right bytes', async () => {
  const ids = (await server.client.listEvents(CONVERSATION, { sort_order: 'TIMESTAMP_DESC' })).map((event) => event.id!);
  const paths = Array.from(
    { length: 40 },
    (_, i) => `/api/conversations/${CONVERSATION}/events/search?sort_order=TIMESTAMP_DESC&limit=50&page_id=${ids[i * 7]}`,
  );
  const alone = await Promise.all(paths.slice(0, 1).map((path) => server.get(path)));
  const together = await Promise.all([...paths, ...paths].map((path) => server.get(path)));

  expect(alone[0]!.text).toBe(together[0]!.text);
  together.forEach((response, i) => {
    const start = (i % paths.length) * 7;
    expect(response.status).toBe(200);
    const items = (response.body as { items: { id: string }[] }).items.map((item) => item.id);
    expect(items).toEqual(ids.slice(start, start + 50));
  });
});
