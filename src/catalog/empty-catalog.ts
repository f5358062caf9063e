import { KnownSecrets } from '../secrets';
import type { ConversationCatalog } from './conversation-catalog';

/** A catalog holding no conversation: for a server whose store keeps events only. */
export const EMPTY_CATALOG: ConversationCatalog = {
  search: async () => ({ items: [], nextPageId: null }),
  count: async () => 0,
  get: async () => undefined,
  state: async () => undefined,
  knownSecrets: async () => KnownSecrets.NONE,
  files: async () => undefined,
};
