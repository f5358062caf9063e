// The published @openhands/typescript-client's ConversationManager and WebSocketCallbackClient
// against a server, in their own Node process (the client is an ES module). The client looks
// for `ws` with `require`, which an ES module lacks in Node: a Node user defines it first,
// as done here. Prints `connected` once the socket's first frame arrived, then, after
// `expectFrames` frames, one JSON document with what every call returned.
// Usage: node published-live-client.mjs PLAN_JSON
// PLAN: { host, apiKey?, conversationId, unknownId, expectFrames }
import { createRequire } from 'node:module';

globalThis.require = createRequire(import.meta.url);
const { ConversationManager, WebSocketCallbackClient } = await import('@openhands/typescript-client');

const plan = JSON.parse(process.argv[2]);
const attempt = async (call) => {
  try {
    return await call();
  } catch (error) {
    return { error: error.message, status: error.status };
  }
};
const manager = new ConversationManager({ host: plan.host, ...(plan.apiKey ? { apiKey: plan.apiKey } : {}) });
const outcome = {
  firstPage: await attempt(() => manager.searchConversations({ limit: 2 })),
  count: await attempt(() => manager.countConversations()),
  all: await attempt(() => manager.getAllConversations()),
  one: await attempt(() => manager.getConversation(plan.conversationId)),
  unknown: await attempt(() => manager.getConversation(plan.unknownId)),
  batch: await attempt(() => manager.getConversations([plan.conversationId, plan.unknownId])),
  frames: [],
  errors: [],
};
const done = new Promise((resolve) => {
  const socket = new WebSocketCallbackClient({
    host: plan.host,
    conversationId: plan.conversationId,
    ...(plan.apiKey ? { apiKey: plan.apiKey } : {}),
    callback: (event) => {
      outcome.frames.push(event);
      if (outcome.frames.length === 1) process.stdout.write('connected\n');
      if (outcome.frames.length >= plan.expectFrames) {
        socket.stop();
        resolve();
      }
    },
    onError: (error) => outcome.errors.push(error.message),
  });
  socket.start();
});
await done;
process.stdout.write(`${JSON.stringify(outcome)}\n`);
