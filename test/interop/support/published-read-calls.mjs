// The published @openhands/typescript-client's calls of the reference 1.58.2's read surface
// beyond events (readiness, server info, the agent's final response), against one server, as
// one JSON document. Usage: node published-read-calls.mjs BASE_URL CONVERSATION_ID
import { ConversationClient, ServerClient } from '@openhands/typescript-client/clients';

const [host, conversationId] = process.argv.slice(2);
const attempt = async (call) => {
  try {
    return await call();
  } catch (error) {
    return { error: error.message };
  }
};
const server = new ServerClient({ host });
const conversations = new ConversationClient({ host });
const info = await attempt(() => server.getServerInfo());
const outcome = {
  ready: await attempt(() => server.getReady()),
  serverInfoKeys: info && typeof info === 'object' ? Object.keys(info).sort() : info,
  finalResponse: await attempt(() => conversations.getAgentFinalResponse(conversationId)),
};
server.close?.();
conversations.close?.();
process.stdout.write(JSON.stringify(outcome));
