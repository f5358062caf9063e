/**
 * What the semantic checks need to know of the contract, read from the document the kit
 * judges with (the bundled one, or `--contract`): the search's page-size bounds and
 * default, its filters, the enums of sources, sort orders and event kinds. Nothing here
 * is a copy: edit `limit`'s maximum and the kit asks for and rejects the new bounds.
 * The checks apply to the operations they know by operationId; one the document does not
 * declare is named in `absent`, and its checks say so.
 */
import {
  type ContractOperation,
  type ContractParameter,
  eventKindNames,
  followReferences,
  type OpenApiDocument,
  type OperationTable,
  operationTable,
  type ParameterSchema,
} from '../contract';

/** The operations the semantic checks are written for, by operationId. */
export const KNOWN_OPERATIONS = {
  search: 'searchConversationEvents',
  count: 'countConversationEvents',
  getEvent: 'getConversationEvent',
} as const;

export interface IntegerBounds {
  /** The smallest accepted value, and how the contract states it. */
  minimum: number;
  minimumKeyword: 'minimum' | 'exclusiveMinimum' | undefined;
  maximum: number;
  maximumKeyword: 'maximum' | 'exclusiveMaximum' | undefined;
}

export interface SearchContract {
  table: OperationTable;
  search: ContractOperation;
  count: ContractOperation | undefined;
  getEvent: ContractOperation | undefined;
  /** The search's `limit`: the bounds a page size must keep and the size of a page asked without one. */
  pageSize: IntegerBounds & { default: number };
  /** `EventSource`'s enum. */
  sources: string[];
  /** The `sort_order` enum, default first. */
  sortOrders: string[];
  kinds: string[];
  /** The search's query parameters that filter (everything but `page_id`, `limit` and `sort_order`). */
  filterNames: string[];
  /** Known operations the document does not declare, as `operationId (what the checks use it for)`. */
  absent: string[];
}

export type SearchContractResult = { ok: true; contract: SearchContract } | { ok: false; problem: string };

const NOT_FILTERS = new Set(['page_id', 'limit', 'sort_order']);

export function readSearchContract(document: OpenApiDocument): SearchContractResult {
  let table: OperationTable;
  try {
    table = operationTable(document);
  } catch (error) {
    return { ok: false, problem: `the contract cannot be read: ${(error as Error).message}` };
  }
  const search = table.byId(KNOWN_OPERATIONS.search);
  if (!search)
    return { ok: false, problem: `the contract declares no operation ${KNOWN_OPERATIONS.search}: the kit discovers the conversation with it` };
  const limit = queryParameter(search, 'limit');
  if (!limit) return { ok: false, problem: `${KNOWN_OPERATIONS.search} has no limit query parameter: the kit pages with it` };
  const bounds = integerBounds(limit.schema);
  const pageSizeDefault = typeof limit.schema.default === 'number' ? limit.schema.default : bounds.maximum;
  if (!Number.isFinite(bounds.maximum))
    return { ok: false, problem: `${KNOWN_OPERATIONS.search}'s limit has no maximum: the kit bounds its traffic by the largest page` };
  const count = table.byId(KNOWN_OPERATIONS.count);
  const getEvent = table.byId(KNOWN_OPERATIONS.getEvent);
  const sortOrder = queryParameter(search, 'sort_order');
  const sortOrders = enumValues(sortOrder?.schema ?? {}).map(String);
  const sortDefault = sortOrder?.schema.default;
  return {
    ok: true,
    contract: {
      table,
      search,
      count,
      getEvent,
      pageSize: { ...bounds, default: pageSizeDefault },
      sources: schemaEnum(document, 'EventSource'),
      sortOrders: [...sortOrders.filter((value) => value === sortDefault), ...sortOrders.filter((value) => value !== sortDefault)],
      kinds: eventKindNames(document),
      filterNames: search.parameters
        .filter((parameter) => parameter.in === 'query' && !NOT_FILTERS.has(parameter.name))
        .map((parameter) => parameter.name),
      absent: [
        ...(count ? [] : [`${KNOWN_OPERATIONS.count} (count equals the walk)`]),
        ...(getEvent ? [] : [`${KNOWN_OPERATIONS.getEvent} (get-by-id equals the walk)`]),
      ],
    },
  };
}

export function queryParameter(operation: ContractOperation, name: string): ContractParameter | undefined {
  return operation.parameters.find((parameter) => parameter.in === 'query' && parameter.name === name);
}

/** The whole numbers a schema accepts, exclusive bounds turned inclusive. */
export function integerBounds(schema: ParameterSchema): IntegerBounds {
  const { minimum, exclusiveMinimum, maximum, exclusiveMaximum } = schema;
  const low =
    typeof exclusiveMinimum === 'number' && (typeof minimum !== 'number' || exclusiveMinimum >= minimum)
      ? { minimum: Math.floor(exclusiveMinimum) + 1, minimumKeyword: 'exclusiveMinimum' as const }
      : typeof minimum === 'number'
        ? { minimum: Math.ceil(minimum), minimumKeyword: 'minimum' as const }
        : { minimum: Number.MIN_SAFE_INTEGER, minimumKeyword: undefined };
  const high =
    typeof exclusiveMaximum === 'number' && (typeof maximum !== 'number' || exclusiveMaximum <= maximum)
      ? { maximum: Math.ceil(exclusiveMaximum) - 1, maximumKeyword: 'exclusiveMaximum' as const }
      : typeof maximum === 'number'
        ? { maximum: Math.floor(maximum), maximumKeyword: 'maximum' as const }
        : { maximum: Number.POSITIVE_INFINITY, maximumKeyword: undefined };
  return { ...low, ...high };
}

/** The values of an enum, looking through `anyOf`/`oneOf` (a nullable enum is written that way). */
export function enumValues(schema: ParameterSchema): unknown[] {
  if (Array.isArray(schema.enum)) return schema.enum;
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].flatMap((part) => enumValues(part));
}

function schemaEnum(document: OpenApiDocument, name: string): string[] {
  const schema = document.components.schemas[name];
  return schema ? enumValues(followReferences(document, schema) as ParameterSchema).map(String) : [];
}
