export type { CatalogPage, CatalogSearch, ConversationCatalog, ConversationFile } from './conversation-catalog';
export { createDirectoryCatalog } from './directory-catalog';
export { EMPTY_CATALOG } from './empty-catalog';
export { MASKED_SECRET } from '../secrets';
