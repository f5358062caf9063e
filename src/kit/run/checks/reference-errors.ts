/**
 * The reference's exact 422 and 404 bodies (docs/reference-behaviour.md, "Search" and "Accepted values and errors"): pydantic's
 * `type`, `loc`, `msg` and, where the table gives it, `ctx`; several invalid parameters
 * reported path first, then query parameters in declaration order.
 */
import { isDeepStrictEqual } from 'node:util';
import { randomUUID } from 'node:crypto';
import type { CheckContext } from '../context';
import { queryParameter, type SearchContract } from '../../search-contract';
import { verdict, type Check, type CheckOutcome, type Finding } from '../types';
import type { Exchange } from '../../http';
import { whenAvailable, type OptionalOperation } from './availability';
import { exchangeOrOutcome, statusAndBody, validationItems } from './support';

interface WantedItem {
  type: string;
  loc: (string | number)[];
  msg: string;
  ctx?: Record<string, unknown>;
}

interface ReferenceRejection {
  id: string;
  title: string;
  query?: string;
  conversationId?: string;
  /** The operation asked; the search when absent. */
  operation?: OptionalOperation;
  want: WantedItem[];
}

/** What follows `/events/` for each operation; get-by-id asks for an id that need not exist, since validation comes first. */
const OPERATION_TAIL: Record<OptionalOperation | 'search', string> = { search: 'search', count: 'count', 'get-event': 'some-event-id' };

function onOperation(context: CheckContext, operation: OptionalOperation | undefined, judge: () => Promise<CheckOutcome>): Promise<CheckOutcome> {
  return operation === undefined ? judge() : whenAvailable(context, [operation], judge);
}

const INT_PARSING = { type: 'int_parsing', loc: ['query', 'limit'], msg: 'Input should be a valid integer, unable to parse string as an integer' };

/** pydantic's words for each bound keyword of the contract. */
const BOUND_ERRORS = {
  exclusiveMinimum: { type: 'greater_than', words: 'greater than', ctx: 'gt' },
  minimum: { type: 'greater_than_equal', words: 'greater than or equal to', ctx: 'ge' },
  maximum: { type: 'less_than_equal', words: 'less than or equal to', ctx: 'le' },
  exclusiveMaximum: { type: 'less_than', words: 'less than', ctx: 'lt' },
} as const;

/** The 422 item pydantic gives for a value outside the bound `keyword` of `limit`'s schema. */
function boundError(contract: SearchContract, keyword: keyof typeof BOUND_ERRORS): WantedItem {
  const bound = queryParameter(contract.search, 'limit')?.schema[keyword];
  const { type, words, ctx } = BOUND_ERRORS[keyword];
  return { type, loc: ['query', 'limit'], msg: `Input should be ${words} ${String(bound)}`, ctx: { [ctx]: bound } };
}

/** pydantic lists an enum's values as `'A', 'B' or 'C'`. */
function sortEnumError(contract: SearchContract): WantedItem {
  const quoted = contract.sortOrders.map((value) => `'${value}'`);
  const expected = quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : (quoted[0] ?? '');
  return { type: 'enum', loc: ['query', 'sort_order'], msg: `Input should be ${expected}`, ctx: { expected } };
}

const datetimeError = (parameter: string, error: string): WantedItem => ({
  type: 'datetime_from_date_parsing',
  loc: ['query', parameter],
  msg: `Input should be a valid datetime or date, ${error}`,
});
const uuidError = (error: string): WantedItem => ({
  type: 'uuid_parsing',
  loc: ['path', 'conversation_id'],
  msg: `Input should be a valid UUID, ${error}`,
});

/** The reference's answers, with the bounds and enums of the contract the kit judges with. */
const referenceRejections = (contract: SearchContract): ReferenceRejection[] => {
  const { pageSize } = contract;
  const belowMin: WantedItem[] = pageSize.minimumKeyword ? [boundError(contract, pageSize.minimumKeyword)] : [];
  const SORT_ENUM = sortEnumError(contract);
  return [
    {
      id: 'ref.errors.uuid-invalid-character',
      title: 'conversation id not-a-uuid: uuid_parsing, invalid character',
      conversationId: 'not-a-uuid',
      want: [uuidError('invalid character: found `n` at 0')],
    },
    {
      id: 'ref.errors.uuid-invalid-length',
      title: 'conversation id 123: uuid_parsing, invalid length',
      conversationId: '123',
      want: [uuidError('invalid length: found 3')],
    },
    ...(pageSize.minimumKeyword
      ? [
          {
            id: 'ref.errors.limit-below-min',
            title: `limit=${pageSize.minimum - 1}: ${belowMin[0]?.type} with ctx ${JSON.stringify(belowMin[0]?.ctx)}`,
            query: `limit=${pageSize.minimum - 1}`,
            want: belowMin,
          },
        ]
      : []),
    ...(pageSize.minimumKeyword && pageSize.minimum - 1 > -1
      ? [{ id: 'ref.errors.limit-negative', title: `limit=-1: ${belowMin[0]?.type}`, query: 'limit=-1', want: belowMin }]
      : []),
    ...(pageSize.maximumKeyword
      ? [
          {
            id: 'ref.errors.limit-above-max',
            title: `limit=${pageSize.maximum + 1}: ${BOUND_ERRORS[pageSize.maximumKeyword].type} with ctx ${JSON.stringify(boundError(contract, pageSize.maximumKeyword).ctx)}`,
            query: `limit=${pageSize.maximum + 1}`,
            want: [boundError(contract, pageSize.maximumKeyword)],
          },
        ]
      : []),
    { id: 'ref.errors.limit-not-a-number', title: 'limit=abc: int_parsing', query: 'limit=abc', want: [INT_PARSING] },
    { id: 'ref.errors.limit-fraction', title: 'limit=1.5: int_parsing', query: 'limit=1.5', want: [INT_PARSING] },
    { id: 'ref.errors.limit-exponent', title: 'limit=1e2: int_parsing', query: 'limit=1e2', want: [INT_PARSING] },
    { id: 'ref.errors.limit-empty', title: 'limit= (empty): int_parsing', query: 'limit=', want: [INT_PARSING] },
    { id: 'ref.errors.sort-order-invalid', title: 'sort_order=BAD: enum with ctx expected', query: 'sort_order=BAD', want: [SORT_ENUM] },
    {
      id: 'ref.errors.sort-order-lower-case',
      title: 'sort_order=timestamp: enum (values are case-sensitive)',
      query: 'sort_order=timestamp',
      want: [SORT_ENUM],
    },
    {
      id: 'ref.errors.timestamp-garbage',
      title: 'timestamp__gte=garbage: datetime_from_date_parsing, input is too short',
      query: 'timestamp__gte=garbage',
      want: [datetimeError('timestamp__gte', 'input is too short')],
    },
    {
      id: 'ref.errors.timestamp-empty',
      title: 'timestamp__lt= (empty): datetime_from_date_parsing, input is too short',
      query: 'timestamp__lt=',
      want: [datetimeError('timestamp__lt', 'input is too short')],
    },
    {
      id: 'ref.errors.timestamp-impossible-date',
      title: 'timestamp__gte=2024-02-30T00:00:00: datetime_from_date_parsing, day value is outside expected range',
      query: 'timestamp__gte=2024-02-30T00%3A00%3A00',
      want: [datetimeError('timestamp__gte', 'day value is outside expected range')],
    },
    {
      id: 'ref.errors.order-of-items',
      title: 'several invalid parameters: one item each, path first, then query parameters in declaration order',
      conversationId: 'not-a-uuid',
      // Sent in an order that differs from the declaration order on purpose.
      query: `timestamp__lt=garbage&sort_order=BAD&limit=${pageSize.minimum - 1}`,
      want: [uuidError('invalid character: found `n` at 0'), ...belowMin, SORT_ENUM, datetimeError('timestamp__lt', 'input is too short')],
    },
    {
      id: 'ref.errors.count-uuid',
      title: 'count, conversation id not-a-uuid: uuid_parsing',
      operation: 'count',
      conversationId: 'not-a-uuid',
      want: [uuidError('invalid character: found `n` at 0')],
    },
    {
      id: 'ref.errors.count-timestamp-garbage',
      title: 'count, timestamp__gte=garbage: datetime_from_date_parsing',
      operation: 'count',
      query: 'timestamp__gte=garbage',
      want: [datetimeError('timestamp__gte', 'input is too short')],
    },
    {
      id: 'ref.errors.count-timestamp-impossible-date',
      title: 'count, timestamp__lt=2024-02-30T00:00:00: datetime_from_date_parsing, day value is outside expected range',
      operation: 'count',
      query: 'timestamp__lt=2024-02-30T00%3A00%3A00',
      want: [datetimeError('timestamp__lt', 'day value is outside expected range')],
    },
    {
      id: 'ref.errors.count-order-of-items',
      title: 'count, several invalid parameters: path first, then timestamp__gte, then timestamp__lt',
      operation: 'count',
      conversationId: 'not-a-uuid',
      query: 'timestamp__lt=garbage&timestamp__gte=',
      want: [
        uuidError('invalid character: found `n` at 0'),
        datetimeError('timestamp__gte', 'input is too short'),
        datetimeError('timestamp__lt', 'input is too short'),
      ],
    },
    {
      id: 'ref.errors.get-event-uuid',
      title: 'get-by-id, conversation id 123: uuid_parsing, invalid length',
      operation: 'get-event',
      conversationId: '123',
      want: [uuidError('invalid length: found 3')],
    },
  ];
};

function referenceRejectionCheck(rejection: ReferenceRejection): Check {
  return {
    id: rejection.id,
    level: 'reference',
    title: rejection.title,
    run: (context) =>
      onOperation(context, rejection.operation, async () => {
        const path = context.eventsPath(OPERATION_TAIL[rejection.operation ?? 'search'], rejection.conversationId, rejection.query);
        const sent = exchangeOrOutcome(await context.get(path), 'the request');
        if ('outcome' in sent) return sent.outcome;
        return verdict(validationBodyFindings(sent.exchange, rejection.want));
      }),
  };
}

/** Compares a 422's `detail` item by item; `input` is not compared (the reference strips secrets from it). */
export function validationBodyFindings(exchange: Exchange, want: WantedItem[]): Finding[] {
  const expected = `422 with detail ${JSON.stringify(want)}`;
  if (exchange.status !== 422) return [{ message: `answered ${statusAndBody(exchange)}`, expected, exchange }];
  const items = validationItems(exchange);
  if (!items) return [{ message: 'the 422 body has no detail array', expected, exchange }];
  if (items.length !== want.length) {
    return [{ message: `detail has ${items.length} items, expected ${want.length}: ${statusAndBody(exchange, 600)}`, expected, exchange }];
  }
  const findings: Finding[] = [];
  want.forEach((wanted, index) => {
    const item = items[index]!;
    const wrong = (['type', 'loc', 'msg', 'ctx'] as const).filter(
      (field) => wanted[field] !== undefined && !isDeepStrictEqual(item[field], wanted[field]),
    );
    if (wrong.length === 0) return;
    const got = wrong.map((field) => `${field} ${JSON.stringify(item[field])}`).join(', ');
    const wantedText = wrong.map((field) => `${field} ${JSON.stringify(wanted[field])}`).join(', ');
    findings.push({ message: `detail[${index}] has ${got}`, expected: wantedText, exchange });
  });
  return findings;
}

function notFoundBody(id: string, operation?: OptionalOperation): Check {
  const asked = operation === undefined ? '' : `${operation}: `;
  return {
    id,
    level: 'reference',
    title: `${asked}the 404 body is {"detail": "Conversation not found: <hyphenated lower-case uuid>"}, whatever form the id was sent in`,
    run: (context) =>
      onOperation(context, operation, async () => {
        const conversation = randomUUID();
        // Sent as upper-case 32 hex, the form the OpenHands app server uses, so the echo must be normalised.
        const path = context.eventsPath(OPERATION_TAIL[operation ?? 'search'], conversation.replaceAll('-', '').toUpperCase());
        const sent = exchangeOrOutcome(await context.get(path), 'the request');
        if ('outcome' in sent) return sent.outcome;
        const { exchange } = sent;
        const want = { detail: `Conversation not found: ${conversation}` };
        const body = exchange.json.ok ? exchange.json.value : undefined;
        if (exchange.status === 404 && isDeepStrictEqual(body, want)) return verdict([]);
        return verdict([{ message: `answered ${statusAndBody(exchange)}`, expected: `404 ${JSON.stringify(want)}`, exchange }]);
      }),
  };
}

export function referenceErrorChecks(contract: SearchContract): Check[] {
  return [
    ...referenceRejections(contract).map(referenceRejectionCheck),
    notFoundBody('ref.errors.not-found-body'),
    notFoundBody('ref.errors.count-not-found-body', 'count'),
    notFoundBody('ref.errors.get-event-not-found-body', 'get-event'),
  ];
}
