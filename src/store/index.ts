export type { EventStore, StoreHealth, StoredConversationSummary, StoredPage } from './event-store';
export { createDirectoryStore, type DirectoryEventStore, type DirectoryStoreOptions } from './directory-store';
export { StoreRootError, checkConversationsRoot, type StoreRootProblem } from './store-root';
export type { WatchMode } from './directory-watch';
