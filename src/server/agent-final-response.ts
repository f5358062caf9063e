/**
 * The agent's final response, as the reference 1.58.2 extracts it
 * (`openhands.sdk.conversation.response_utils.get_agent_final_response`): walking back from
 * the newest event, the first agent event that is the `finish` tool's action (its message) or
 * an agent message (its text); nothing found is `""`. The walk asks the store for the agent's
 * events newest first, a page at a time, and usually stops on the first page.
 */
import type { SearchCriteria } from '../search';
import type { EventStore } from '../store/event-store';

const PAGE = 100;
const FINISH_TOOL = 'finish';

type Content = { type?: unknown; text?: unknown; image_urls?: unknown };
type AgentEvent = {
  kind?: unknown;
  tool_name?: unknown;
  action?: { kind?: unknown; message?: unknown } | null;
  llm_message?: { content?: unknown };
};

/** The final response's text; undefined when the conversation does not exist. */
export async function agentFinalResponse(store: EventStore, hex: string): Promise<string | undefined> {
  let pageId: string | undefined;
  do {
    const criteria: SearchCriteria = { sortOrder: 'TIMESTAMP_DESC', source: 'agent', limit: PAGE, ...(pageId ? { pageId } : {}) };
    const page = await store.search(hex, criteria);
    if (!page) return undefined;
    if (page.itemsJson.length === 0) return '';
    const events = JSON.parse(`[${page.itemsJson.join(',')}]`) as AgentEvent[];
    for (const event of events) {
      const answer = finalAnswerOf(event);
      if (answer !== undefined) return answer;
    }
    pageId = page.nextPageId ?? undefined;
  } while (pageId !== undefined);
  return '';
}

/** The event's answer when it ends the walk; undefined when the walk goes on past it. */
function finalAnswerOf(event: AgentEvent): string | undefined {
  if (event.kind === 'ActionEvent' && event.tool_name === FINISH_TOOL) {
    // A finish call whose action did not parse ends the walk without an answer, as in the reference.
    return event.action?.kind === 'FinishAction' && typeof event.action.message === 'string' ? event.action.message : '';
  }
  if (event.kind === 'MessageEvent') return textOf(event.llm_message?.content);
  return undefined;
}

/** The reference's `content_to_str`, joined: text as it is, an image as the count of its URLs. */
function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return (content as Content[])
    .map((item) => {
      if (item.type === 'text' && typeof item.text === 'string') return item.text;
      if (item.type === 'image') return `[Image: ${Array.isArray(item.image_urls) ? item.image_urls.length : 0} URLs]`;
      return '';
    })
    .join('');
}
