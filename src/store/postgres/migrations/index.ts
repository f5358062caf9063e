/**
 * Every schema migration, in order. A migration is never edited once released: a change to
 * the schema is a new module here with the next version. They are TypeScript modules
 * holding SQL, so the build carries them into dist/ like any other code.
 */
import { EVENTS_SCHEMA } from './0001-events';
import { ACROSS_CONVERSATIONS_SCHEMA } from './0002-across-conversations';
import { CATALOG_DOCUMENTS_SCHEMA } from './0003-catalog-documents';
import { APPEND_ORDER_SCHEMA } from './0004-append-order';
import { ONE_INGESTER_SCHEMA } from './0005-one-ingester';
import { EVENT_PIECES_SCHEMA } from './0006-event-pieces';
import { UNREADABLE_CONVERSATIONS_SCHEMA } from './0007-unreadable-conversations';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: '0001-events', sql: EVENTS_SCHEMA },
  { version: 2, name: '0002-across-conversations', sql: ACROSS_CONVERSATIONS_SCHEMA },
  { version: 3, name: '0003-catalog-documents', sql: CATALOG_DOCUMENTS_SCHEMA },
  { version: 4, name: '0004-append-order', sql: APPEND_ORDER_SCHEMA },
  { version: 5, name: '0005-one-ingester', sql: ONE_INGESTER_SCHEMA },
  { version: 6, name: '0006-event-pieces', sql: EVENT_PIECES_SCHEMA },
  { version: 7, name: '0007-unreadable-conversations', sql: UNREADABLE_CONVERSATIONS_SCHEMA },
];
