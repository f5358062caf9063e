export type { EventStore, StoreHealth, StoredConversationSummary, StoredPage } from './event-store';
export { createDirectoryStore, type DirectoryEventStore, type DirectoryStoreOptions } from './directory/directory-store';
export { StoreRootError, checkConversationsRoot, type StoreRootProblem } from './directory/open/store-root';
export type { WatchMode } from './directory/watch/directory-watch';
export { decodeStoredEvent, type StoredEventDecision, type StoredEventMode } from './stored-event/decide';
export type { StoredEventCounts } from './stored-event/counts';
