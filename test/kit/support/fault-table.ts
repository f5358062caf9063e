/**
 * The fault table: faults spread over every operation of the contract, each one thing broken in
 * an otherwise correct server (our server behind the fault injector), each run through the kit
 * and through Schemathesis by test/kit/fault-table.test.ts. The operations, their bounds and
 * their paths come from the contract, so a fault follows an edit of it.
 */
import { loadOpenApiDocument, operationTable } from '../../../src/contract';
import { FAULTS, type Fault, operationFaults, type UpstreamResponse } from './fault-injector';

const table = operationTable(loadOpenApiDocument());

/** The operationId a request path names, by the contract's own matching. */
function operationAt(url: URL): string | undefined {
  return table.match('GET', url.pathname)?.operation.operationId;
}

const is = (operationId: string) => (url: URL) => operationAt(url) === operationId;

const SERVER_ERROR: UpstreamResponse = { status: 500, body: { detail: 'Internal Server Error' } };

/** What the server answers for something it does not hold (a 404), changed into `answer`. */
function onNotFound(operationId: string, answer: UpstreamResponse): Fault {
  return { response: (url, response) => (is(operationId)(url) && response.status === 404 ? answer : response) };
}

/** The bound of `parameter` the contract sets, not enforced: a value above it is served as the bound. */
function maximumNotEnforced(operationId: string, parameter: string): Fault {
  const declared = table.operations.find((operation) => operation.operationId === operationId);
  const maximum = declared?.parameters.find((candidate) => candidate.name === parameter)?.schema.maximum;
  if (typeof maximum !== 'number') throw new Error(`${operationId} has no ${parameter} with a maximum in the contract`);
  return {
    request: (url) => {
      const value = Number(url.searchParams.get(parameter));
      if (!is(operationId)(url) || !(value > maximum)) return url;
      const changed = new URL(url);
      changed.searchParams.set(parameter, String(maximum));
      return changed;
    },
  };
}

/** A 500 whenever `parameter` is given to the operation, whatever its (valid) value. */
function serverErrorWithParameter(operationId: string, parameter: string): Fault {
  return { request: (url) => (is(operationId)(url) && url.searchParams.has(parameter) ? SERVER_ERROR : url) };
}

/** A 500 for a `page_id` this server never handed out (it remembers the ones it did). */
function serverErrorOnPageIdNotHandedOut(operationId: string): Fault {
  const handedOut = new Set<string>();
  return {
    request: (url) => {
      const pageId = url.searchParams.get('page_id');
      return is(operationId)(url) && pageId !== null && !handedOut.has(pageId) ? SERVER_ERROR : url;
    },
    response: (url, response) => {
      const next = (response.body as { next_page_id?: unknown } | null)?.next_page_id;
      if (is(operationId)(url) && typeof next === 'string') handedOut.add(next);
      return response;
    },
  };
}

/** A 500 when the answer would hold a null for an id it does not know. */
function serverErrorOnNullItem(operationId: string): Fault {
  return {
    response: (url, response) => (is(operationId)(url) && Array.isArray(response.body) && response.body.includes(null) ? SERVER_ERROR : response),
  };
}

/** A count one too many when a filter is given. */
function countOffByOneWithFilters(operationId: string): Fault {
  return {
    response: (url, response) =>
      is(operationId)(url) && url.search.length > 1 && response.status === 200 && typeof response.body === 'number'
        ? { status: 200, body: response.body + 1 }
        : response,
  };
}

/** Restricted to one operation: a fault written for the search, kept off the others. */
function only(operationId: string, fault: Fault): Fault {
  return {
    ...(fault.request ? { request: (url: URL) => (is(operationId)(url) ? fault.request!(url) : url) } : {}),
    ...(fault.response
      ? { response: (url: URL, response: UpstreamResponse) => (is(operationId)(url) ? fault.response!(url, response) : response) }
      : {}),
  };
}

const generic = (operationId: string) => operationFaults(is(operationId), () => false);

export interface FaultRow {
  /** The fault's name: its route in the injector and its row in docs/contract-kit.md. */
  readonly name: string;
  readonly operationId: string;
  /** What is broken, as the table says it. */
  readonly description: string;
  readonly fault: Fault;
  /** The kit's checks run against it: those about this operation (the Schemathesis run is limited to the operation too). */
  readonly kitChecks: readonly string[];
}

const SEARCH = 'searchConversationEvents';
const COUNT = 'countConversationEvents';
const GET_EVENT = 'getConversationEvent';
const LIST = 'listStoredConversations';
const STORED_SEARCH = 'searchStoredEvents';
const STORED_COUNT = 'countStoredEvents';
const EXPORT = 'exportStoredConversation';
const CONVERSATIONS = 'searchConversations';
const CONVERSATION_COUNT = 'countConversations';
const BY_IDS = 'getConversationsById';
const CONVERSATION = 'getConversation';
const TRAJECTORY = 'downloadTrajectory';
const EVENTS_BY_IDS = 'getConversationEventsByIds';
const FINAL_RESPONSE = 'getAgentFinalResponse';
const READINESS = 'getReadiness';

/** The kit's checks about one operation: the contract-driven ones, and those written for it. */
const checksOf = (operationId: string, ...written: string[]) => [`operations.${operationId}.`, ...written];
const SEARCH_CHECKS = checksOf(SEARCH, 'paging.', 'filters.', 'sort.', 'errors.', 'responses.', 'schema.');

export const FAULT_ROWS: readonly FaultRow[] = [
  {
    name: 'search-400-unknown-conversation',
    operationId: SEARCH,
    description: 'an unknown conversation answered with an undeclared 400',
    fault: onNotFound(SEARCH, { status: 400, body: { detail: 'Bad conversation' } }),
    kitChecks: SEARCH_CHECKS,
  },
  {
    name: 'search-text-plain',
    operationId: SEARCH,
    description: 'pages sent as `text/plain`',
    fault: generic(SEARCH).wrongContentType,
    kitChecks: SEARCH_CHECKS,
  },
  {
    name: 'search-duplicate-at-seam',
    operationId: SEARCH,
    description: 'the next page starts with the last event of this one',
    fault: only(SEARCH, FAULTS.duplicateAtPageSeam),
    kitChecks: SEARCH_CHECKS,
  },
  {
    name: 'search-body-case-sensitive',
    operationId: SEARCH,
    description: '`body` matched case-sensitively',
    fault: only(SEARCH, FAULTS.caseSensitiveBody),
    kitChecks: SEARCH_CHECKS,
  },
  {
    name: 'search-descending-unsorted',
    operationId: SEARCH,
    description: '`TIMESTAMP_DESC` pages ascending within each page',
    fault: only(SEARCH, FAULTS.unsortedDescending),
    kitChecks: SEARCH_CHECKS,
  },
  {
    name: 'count-500-unknown-conversation',
    operationId: COUNT,
    description: 'an unknown conversation answered 500',
    fault: onNotFound(COUNT, { status: 500, body: { detail: 'Internal Server Error' } }),
    kitChecks: checksOf(COUNT, 'ref.count.'),
  },
  {
    name: 'count-off-by-one',
    operationId: COUNT,
    description: 'the count one too many whenever a filter is given',
    fault: countOffByOneWithFilters(COUNT),
    kitChecks: checksOf(COUNT, 'ref.count.'),
  },
  {
    name: 'get-event-400-unknown-id',
    operationId: GET_EVENT,
    description: 'an unknown event id answered with an undeclared 400',
    fault: onNotFound(GET_EVENT, { status: 400, body: { detail: 'Bad event id' } }),
    kitChecks: checksOf(GET_EVENT, 'ref.get-event.'),
  },
  {
    name: 'get-event-breaks-schema',
    operationId: GET_EVENT,
    description: 'an event that breaks its schema',
    fault: generic(GET_EVENT).bodyBreaksSchema,
    kitChecks: checksOf(GET_EVENT, 'ref.get-event.'),
  },
  {
    name: 'list-text-plain',
    operationId: LIST,
    description: 'the list sent as `text/plain`',
    fault: generic(LIST).wrongContentType,
    kitChecks: checksOf(LIST),
  },
  {
    name: 'list-breaks-schema',
    operationId: LIST,
    description: 'a list that breaks its schema',
    fault: generic(LIST).bodyBreaksSchema,
    kitChecks: checksOf(LIST),
  },
  {
    name: 'stored-search-limit-unbounded',
    operationId: STORED_SEARCH,
    description: '`limit` above its maximum accepted',
    fault: maximumNotEnforced(STORED_SEARCH, 'limit'),
    kitChecks: checksOf(STORED_SEARCH, 'stored.'),
  },
  {
    name: 'stored-search-500-page-id-not-handed-out',
    operationId: STORED_SEARCH,
    description: 'a `page_id` nobody handed out answered 500',
    fault: serverErrorOnPageIdNotHandedOut(STORED_SEARCH),
    kitChecks: checksOf(STORED_SEARCH, 'stored.'),
  },
  {
    name: 'stored-count-500-on-body',
    operationId: STORED_COUNT,
    description: 'a `body` filter (a valid value) answered 500',
    fault: serverErrorWithParameter(STORED_COUNT, 'body'),
    kitChecks: checksOf(STORED_COUNT, 'stored.'),
  },
  {
    name: 'stored-count-off-by-one',
    operationId: STORED_COUNT,
    description: 'the count one too many whenever a filter is given',
    fault: countOffByOneWithFilters(STORED_COUNT),
    kitChecks: checksOf(STORED_COUNT, 'stored.'),
  },
  {
    name: 'export-text-plain',
    operationId: EXPORT,
    description: 'the export sent as `text/plain`',
    fault: generic(EXPORT).wrongContentType,
    kitChecks: checksOf(EXPORT),
  },
  {
    name: 'export-400-unknown-conversation',
    operationId: EXPORT,
    description: 'an unknown conversation answered with an undeclared 400',
    fault: onNotFound(EXPORT, { status: 400, body: { detail: 'Bad conversation' } }),
    kitChecks: checksOf(EXPORT),
  },
  {
    name: 'conversations-203',
    operationId: CONVERSATIONS,
    description: 'an undeclared status (203) for a page',
    fault: generic(CONVERSATIONS).undeclaredStatus,
    kitChecks: checksOf(CONVERSATIONS, 'ref.catalog.'),
  },
  {
    name: 'conversations-limit-unbounded',
    operationId: CONVERSATIONS,
    description: '`limit` above its maximum accepted',
    fault: maximumNotEnforced(CONVERSATIONS, 'limit'),
    kitChecks: checksOf(CONVERSATIONS, 'ref.catalog.'),
  },
  {
    name: 'conversation-count-breaks-schema',
    operationId: CONVERSATION_COUNT,
    description: 'a count that breaks its schema',
    fault: generic(CONVERSATION_COUNT).bodyBreaksSchema,
    kitChecks: checksOf(CONVERSATION_COUNT, 'ref.catalog.'),
  },
  {
    name: 'by-ids-500-unknown-id',
    operationId: BY_IDS,
    description: 'an id nobody holds answered 500 instead of a null in its place',
    fault: serverErrorOnNullItem(BY_IDS),
    kitChecks: checksOf(BY_IDS, 'ref.catalog.'),
  },
  {
    name: 'conversation-400-unknown-id',
    operationId: CONVERSATION,
    description: 'an unknown conversation answered with an undeclared 400',
    fault: onNotFound(CONVERSATION, { status: 400, body: { detail: 'Bad conversation' } }),
    kitChecks: checksOf(CONVERSATION, 'ref.catalog.'),
  },
  {
    name: 'trajectory-500-unknown-id',
    operationId: TRAJECTORY,
    description: 'an unknown conversation answered 500',
    fault: onNotFound(TRAJECTORY, { status: 500, body: { detail: 'Internal Server Error' } }),
    kitChecks: checksOf(TRAJECTORY),
  },
  {
    name: 'events-by-ids-400-unknown-conversation',
    operationId: EVENTS_BY_IDS,
    description: 'an unknown conversation answered with an undeclared 400',
    fault: onNotFound(EVENTS_BY_IDS, { status: 400, body: { detail: 'Bad conversation' } }),
    kitChecks: checksOf(EVENTS_BY_IDS),
  },
  {
    name: 'final-response-breaks-schema',
    operationId: FINAL_RESPONSE,
    description: 'a final response that breaks its schema',
    fault: generic(FINAL_RESPONSE).bodyBreaksSchema,
    kitChecks: checksOf(FINAL_RESPONSE),
  },
  {
    name: 'readiness-text-plain',
    operationId: READINESS,
    description: 'readiness answered as text/plain',
    fault: generic(READINESS).wrongContentType,
    kitChecks: checksOf(READINESS),
  },
];
