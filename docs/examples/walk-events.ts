import { type Event, type EventOfKind, createAgentServerClient } from 'agent-server-contract';

const [baseUrl = 'http://127.0.0.1:8000', conversationId = ''] = process.argv.slice(2);
const client = createAgentServerClient({ baseUrl, sessionApiKey: process.env.SESSION_API_KEY });

function toolOf(action: EventOfKind<'ActionEvent'>): string {
  return action.tool_name;
}

function describe(event: Event): string {
  switch (event.kind) {
    case 'ActionEvent':
      return `${event.source} calls ${toolOf(event)}`; // narrowed on kind
    case 'MessageEvent':
      return `${event.source} writes a message`;
    // @ts-expect-error: the contract has no event kind called 'TeleportEvent'
    case 'TeleportEvent':
      return 'never';
    default:
      return event.kind;
  }
}

const first = await client.searchEvents(conversationId, { limit: 5 });
if (!first.ok) throw new Error(`search failed: ${first.error.status} ${JSON.stringify(first.error.detail)}`);
for (const event of first.page.items) console.log(describe(event));

let walked = 0;
for await (const _event of client.iterateEvents(conversationId, {})) walked++;
const counted = await client.countEvents(conversationId, {});
if (!counted.ok) throw new Error(`count failed: ${counted.error.status}`);
console.log(JSON.stringify({ walked, counted: counted.count }));
