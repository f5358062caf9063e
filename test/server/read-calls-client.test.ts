/**
 * Our published client reaches the reference 1.58.2's further read calls through `client.api`,
 * typed from the contract: readiness and the agent's final response. The batch get sends its
 * ids in the body of a GET, which fetch (and so openapi-fetch) refuses to send: its type is
 * there, and the call fails before it leaves (docs/reference-behaviour.md).
 */
import { createAgentServerClient } from '../../src/client';
import { conversationId, eventId, message } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';

const ID = conversationId(3);
let server: LiveServer;

beforeAll(async () => {
  server = await startLiveServer([
    {
      id: ID,
      events: [
        message({ id: eventId(1), timestamp: '2026-11-25T10:00:01.000001', source: 'user' }, { text: ['Hi.'] }),
        message({ id: eventId(2), timestamp: '2026-11-25T10:00:02.000001', source: 'agent' }, { text: ['Hello.'] }),
      ],
    },
  ]);
});
afterAll(() => server.stop());

test('client.api reads readiness and the final response, typed from the contract', async () => {
  const client = createAgentServerClient({ baseUrl: server.url });
  const ready = await client.api.GET('/ready');
  expect(ready.data).toEqual({ status: 'ready' });
  const final = await client.api.GET('/api/conversations/{conversation_id}/agent_final_response', { params: { path: { conversation_id: ID } } });
  const response: string | undefined = final.data?.response;
  expect(response).toBe('Hello.');
  const unknown = await client.api.GET('/api/conversations/{conversation_id}/agent_final_response', {
    params: { path: { conversation_id: conversationId(9) } },
  });
  expect({ status: unknown.response.status, error: unknown.error }).toEqual({ status: 404, error: { detail: 'Not Found' } });
});

test('the batch get is typed, but fetch does not send a GET with a body', async () => {
  const client = createAgentServerClient({ baseUrl: server.url });
  await expect(
    client.api.GET('/api/conversations/{conversation_id}/events', { params: { path: { conversation_id: ID } }, body: [eventId(1)] }),
  ).rejects.toThrow(/GET\/HEAD method cannot have body/);
});
