export type { EventStore, ExportedEvent, LargeEvent, StoreHealth, StoredConversationSummary, StoredPage } from './event-store';
export { LARGE_EVENT_BYTES } from './event-store';
export { openDirectoryStore, openIndexedDirectory, type IndexedDirectoryStore, type IndexedDirectoryOptions } from './sqlite/indexed-directory';
export { IndexFileError, defaultIndexPath } from './sqlite/index-file';
export { StoreRootError, checkConversationsRoot, type StoreRootProblem } from './files/store-root';
export { decodeStoredEvent, type StoredEventDecision, type StoredEventMode } from './stored-event/decide';
export type { StoredEventCounts } from './stored-event/counts';
