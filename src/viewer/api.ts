/**
 * The page's access to the server: the project's typed client, with the session key of
 * this tab, and failures turned into messages a reader can act on. A 401 is thrown as
 * SessionKeyNeeded, which the page answers with the key prompt.
 */
import { createAgentServerClient, type AgentServerClient, type AgentServerError } from '../client';
import type {
  CountQuery,
  EventPage,
  ExportFormat,
  SearchQuery,
  StoredConversationList,
  StoredEventPage,
  StoredEventsSearchQuery,
} from '../contract/types';
import { type LiveConnection, type LiveHandlers, followEvents } from './live-socket';

export class SessionKeyNeeded extends Error {
  override readonly name = 'SessionKeyNeeded';
  constructor(readonly keyWasSent: boolean) {
    super(keyWasSent ? 'The server did not accept the session key.' : 'The server requires a session key.');
  }
}

/** A failed request, with a message that says what went wrong in the reader's terms. */
export class ViewerRequestError extends Error {
  override readonly name = 'ViewerRequestError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export interface ViewerApi {
  listConversations(): Promise<StoredConversationList>;
  searchEvents(conversationId: string, query: SearchQuery): Promise<EventPage>;
  countEvents(conversationId: string, filters: CountQuery): Promise<number>;
  /** One page of the search across every stored conversation. */
  searchStoredEvents(query: StoredEventsSearchQuery): Promise<StoredEventPage>;
  /** A conversation as a file, read whole (the page offers it as a download). */
  exportConversation(conversationId: string, format: ExportFormat): Promise<{ blob: Blob; fileName: string }>;
  /** Follows the conversation's events socket from `since` (the newest event shown). */
  followEvents(conversationId: string, since: string | undefined, handlers: LiveHandlers): LiveConnection;
}

export function createViewerApi(sessionKey: string | undefined): ViewerApi {
  const client: AgentServerClient = createAgentServerClient({
    baseUrl: location.origin,
    ...(sessionKey !== undefined ? { sessionApiKey: sessionKey } : {}),
  });
  const keyWasSent = sessionKey !== undefined;
  return {
    async listConversations() {
      const result = await reach(() => client.listStoredConversations());
      if (result.ok) return result.list;
      throw failure(result.error, keyWasSent, 'the list of conversations');
    },
    async searchEvents(conversationId, query) {
      const result = await reach(() => client.searchEvents(conversationId, query));
      if (result.ok) return result.page;
      throw failure(result.error, keyWasSent, 'the events');
    },
    async countEvents(conversationId, filters) {
      const result = await reach(() => client.countEvents(conversationId, filters));
      if (result.ok) return result.count;
      throw failure(result.error, keyWasSent, 'the number of events');
    },
    async searchStoredEvents(query) {
      const result = await reach(() => client.searchStoredEvents(query));
      if (result.ok) return result.page;
      throw failure(result.error, keyWasSent, 'the search results');
    },
    async exportConversation(conversationId, format) {
      const result = await reach(() => client.exportConversation(conversationId, format));
      if (!result.ok) throw failure(result.error, keyWasSent, 'the export');
      return {
        blob: await result.response.blob(),
        fileName: result.fileName ?? `conversation-${conversationId}.${format === 'markdown' ? 'md' : 'jsonl'}`,
      };
    },
    followEvents(conversationId, since, handlers) {
      return followEvents(conversationId, since, sessionKey, handlers);
    },
  };
}

async function reach<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw new ViewerRequestError(`Cannot reach the server (${error instanceof Error ? error.message : String(error)}). Is it still running?`, 0);
  }
}

function failure(error: AgentServerError, keyWasSent: boolean, what: string): Error {
  if (error.status === 401) return new SessionKeyNeeded(keyWasSent);
  if (error.status === 404 && typeof error.detail === 'string')
    return new ViewerRequestError(`${error.detail}. It may have been deleted, or the link names another store's conversation.`, 404);
  if (error.status === 422) {
    const problems = error.validationErrors.map((item) => `${String(item.loc[item.loc.length - 1] ?? 'request')}: ${item.msg}`);
    return new ViewerRequestError(`The server rejected the filters. ${problems.join('; ')}`, 422);
  }
  const detail = typeof error.detail === 'string' ? `: ${error.detail}` : '';
  return new ViewerRequestError(`The server could not send ${what} (HTTP ${error.status}${detail}).`, error.status);
}
