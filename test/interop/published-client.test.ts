import { createAgentServerClient, type AgentServerClient } from '../../src/client';
import type { Event } from '../../src/contract';
import { startOurServer, type OurServer } from '../kit/support/our-server';
import { planFor, runPublishedClient } from './support/run-published-client';

/*
 * The published @openhands/typescript-client (RemoteEventsList, pinned in devDependencies)
 * drives our real server: search, count, getEventById, getEventsById (an unknown id is
 * null) and getEvents, each compared with what our own client gets for the same call.
 */
let ours: OurServer;
let client: AgentServerClient;
let events: Event[];
beforeAll(async () => {
  ours = await startOurServer({ events: 230, seed: 'interop' });
  client = createAgentServerClient({ baseUrl: ours.url });
  events = await client.listEvents(ours.conversationId);
});
afterAll(() => ours.stop());

it('search, count, getEventById, getEventsById and getEvents give what our client gets', async () => {
  const plan = planFor(ours.url, ours.conversationId, events);
  const published = await runPublishedClient(plan);

  const ourSearches = await Promise.all(plan.searches.map(async (options) => client.searchEvents(ours.conversationId, { limit: 100, ...options })));
  expect(published.searches).toEqual(ourSearches.map((result) => (result.ok ? result.page : result.error.message)));
  expect(published.searches[1]!.items.length).toBeGreaterThan(0);

  const ourCounts = await Promise.all(plan.counts.map((filters) => client.countEvents(ours.conversationId, filters)));
  expect(published.counts).toEqual(ourCounts.map((result) => (result.ok ? result.count : result.error.message)));
  expect(published.counts[0]).toBe(events.length);

  const ourEvents = await Promise.all(plan.eventIds.map((id) => client.getEvent(ours.conversationId, id)));
  expect(published.events).toEqual(ourEvents.map((result) => (result.ok ? result.event : result.error.message)));

  const unknown = await client.getEvent(ours.conversationId, 'no-such-event');
  expect(unknown.ok ? 'found' : unknown.error.status).toBe(404);
  expect(published.batch).toEqual([events[1], null, events[2]]);

  expect(published.all).toEqual(events);
  expect(published.all).toHaveLength(230);
});
