// Drives a server with the published @openhands/typescript-client (an ES module, so it runs
// here in its own Node process rather than inside jest) and prints what each call returned
// as one JSON document. Usage: node published-client.mjs PLAN_JSON
// PLAN: { baseUrl, apiKey?, conversationId, searches: [options], counts: [filters], eventIds: [id], batch: [id] }
import { RemoteEventsList } from '@openhands/typescript-client';

const plan = JSON.parse(process.argv[2]);
const events = new RemoteEventsList({ baseUrl: plan.baseUrl, ...(plan.apiKey ? { apiKey: plan.apiKey } : {}) }, plan.conversationId);

// A call that throws is recorded as { error }, so a faulty server still gets every call.
const attempt = async (call) => {
  try {
    return await call();
  } catch (error) {
    return { error: error.message };
  }
};
const outcome = { searches: [], counts: [], events: [], batch: null, all: null };
for (const options of plan.searches) outcome.searches.push(await attempt(() => events.search(options)));
for (const filters of plan.counts) outcome.counts.push(await attempt(() => events.count(filters)));
for (const id of plan.eventIds) outcome.events.push(await attempt(() => events.getEventById(id)));
outcome.batch = await attempt(() => events.getEventsById(plan.batch));
outcome.all = await attempt(() => events.getEvents());
process.stdout.write(JSON.stringify(outcome));
