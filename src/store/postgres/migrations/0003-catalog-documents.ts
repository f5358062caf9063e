/**
 * What the conversations catalog reads of each conversation directory, copied by the
 * ingester: `meta.json` and `base_state.json` as parsed JSON written out again (key order
 * kept, secrets as stored: they are masked when served, as the directory's are), and the
 * values the catalog filters and orders by, read from them with the catalog's own code
 * (src/catalog/catalog-entry.ts), so a page is one walk of an ordered index.
 */
export const CATALOG_DOCUMENTS_SCHEMA = `
CREATE TABLE conversation_documents (
  conversation_id integer PRIMARY KEY REFERENCES conversations ON DELETE CASCADE,
  -- The conversation's id, copied from conversations so the catalog's orders end on it.
  hex text COLLATE "C" NOT NULL,
  -- The files' JSON objects; NULL when the file is absent or not a JSON object.
  meta text,
  state text,
  -- Whether the catalog lists it: meta.json is an object and base_state.json, when present, is one too.
  in_catalog boolean NOT NULL,
  -- The state's execution_status ('idle' when it has none), and the metadata's times in
  -- microseconds (the smallest bigint when there is none, so such entries sort first).
  execution_status text NOT NULL,
  created_micros bigint NOT NULL,
  updated_micros bigint NOT NULL,
  -- The parent conversation meta.json names, as 32 hex digits.
  parent_hex text COLLATE "C"
);

CREATE INDEX catalog_by_creation ON conversation_documents (created_micros, hex) WHERE in_catalog;
CREATE INDEX catalog_by_update ON conversation_documents (updated_micros, hex) WHERE in_catalog;
CREATE INDEX catalog_by_status_creation ON conversation_documents (execution_status, created_micros, hex) WHERE in_catalog;
CREATE INDEX catalog_by_status_update ON conversation_documents (execution_status, updated_micros, hex) WHERE in_catalog;
CREATE INDEX catalog_children ON conversation_documents (parent_hex, hex) WHERE in_catalog AND parent_hex IS NOT NULL;
`;
