/**
 * Seed section 4.1 rules 1 and 2 and section 8: an unknown conversation is a 404, and each
 * class of invalid parameter is a 422 whose `detail` names the parameter in `loc`. Never a
 * 500. Malformed values are sent raw, since the typed client cannot express them.
 */
import { randomUUID } from 'node:crypto';
import { queryParameter, type SearchContract } from '../../search-contract';
import { verdict, type Check, type Finding } from '../types';
import { exchangeOrOutcome, outcomeOfFailure, statusAndBody, validationItems } from './support';

interface RejectionCase {
  id: string;
  title: string;
  /** Query string sent as is (already encoded where it needs to be). */
  query?: string;
  /** Sent in place of the conversation id. */
  conversationId?: string;
  parameter: string;
}

/** The page-size cases one step outside each bound the contract gives `limit`. */
function limitRejections({ pageSize }: SearchContract): RejectionCase[] {
  const rejected = (id: string, value: number | string): RejectionCase => ({
    id,
    title: `limit=${value} is rejected with 422 naming limit`,
    query: `limit=${value}`,
    parameter: 'limit',
  });
  return [
    ...(pageSize.minimumKeyword ? [rejected('errors.limit-below-min', pageSize.minimum - 1)] : []),
    ...(Number.isFinite(pageSize.maximum) ? [rejected('errors.limit-above-max', pageSize.maximum + 1)] : []),
    ...(pageSize.minimum - 1 > -1 ? [rejected('errors.limit-negative', -1)] : []),
    rejected('errors.limit-fraction', `${pageSize.minimum}.5`),
    rejected('errors.limit-not-a-number', 'abc'),
  ];
}

const REJECTIONS: RejectionCase[] = [
  {
    id: 'errors.sort-order-invalid',
    title: 'sort_order=BAD is rejected with 422 naming sort_order',
    query: 'sort_order=BAD',
    parameter: 'sort_order',
  },
  {
    id: 'errors.timestamp-gte-garbage',
    title: 'timestamp__gte=garbage is rejected with 422 naming timestamp__gte',
    query: 'timestamp__gte=garbage',
    parameter: 'timestamp__gte',
  },
  {
    id: 'errors.timestamp-lt-garbage',
    title: 'timestamp__lt=garbage is rejected with 422 naming timestamp__lt',
    query: 'timestamp__lt=garbage',
    parameter: 'timestamp__lt',
  },
  {
    id: 'errors.timestamp-gte-impossible-date',
    title: 'timestamp__gte of 30 February is rejected with 422 naming timestamp__gte',
    query: 'timestamp__gte=2024-02-30T00%3A00%3A00Z',
    parameter: 'timestamp__gte',
  },
  {
    id: 'errors.timestamp-lt-bad-month',
    title: 'timestamp__lt in month 13 is rejected with 422 naming timestamp__lt',
    query: 'timestamp__lt=2024-13-01T00%3A00%3A00Z',
    parameter: 'timestamp__lt',
  },
  {
    id: 'errors.conversation-id-not-uuid',
    title: 'a conversation id that is not a UUID is rejected with 422 naming conversation_id',
    conversationId: 'not-a-uuid',
    parameter: 'conversation_id',
  },
];

function rejectionCheck(rejection: RejectionCase): Check {
  return {
    id: rejection.id,
    level: 'seed',
    title: rejection.title,
    async run(context) {
      const sent = exchangeOrOutcome(await context.get(context.searchPath(rejection.conversationId, rejection.query)), 'the request');
      if ('outcome' in sent) return sent.outcome;
      const { exchange } = sent;
      const expected = `422 with a detail item whose loc names ${JSON.stringify(rejection.parameter)}`;
      if (exchange.status >= 500) {
        return verdict([{ message: `the server failed with ${exchange.status} on invalid input instead of rejecting it`, expected, exchange }]);
      }
      if (exchange.status !== 422) return verdict([{ message: `answered ${statusAndBody(exchange)}`, expected, exchange }]);
      const items = validationItems(exchange);
      if (!items) return verdict([{ message: 'the 422 body has no detail array', expected, exchange }]);
      const named = items.some((item) => Array.isArray(item['loc']) && item['loc'].includes(rejection.parameter));
      return verdict(
        named ? [] : [{ message: `no detail item names ${rejection.parameter} in loc: ${statusAndBody(exchange)}`, expected, exchange }],
      );
    },
  };
}

const notFound: Check = {
  id: 'errors.not-found',
  level: 'seed',
  title: 'an unknown conversation (a random UUID) is a 404',
  async run(context) {
    const sent = exchangeOrOutcome(await context.get(context.searchPath(randomUUID())), 'the request');
    if ('outcome' in sent) return sent.outcome;
    const { exchange } = sent;
    return verdict(exchange.status === 404 ? [] : [{ message: `answered ${statusAndBody(exchange)}`, expected: '404', exchange }]);
  },
};

const limitBoundsAccepted = ({ pageSize }: SearchContract): Check => ({
  id: 'errors.limit-bounds-accepted',
  level: 'seed',
  title: `limit=${pageSize.minimum} and limit=${pageSize.maximum} (the contract's bounds) are accepted and respected`,
  async run(context) {
    const findings: Finding[] = [];
    for (const limit of [pageSize.minimum, pageSize.maximum]) {
      const outcome = await context.search({ limit });
      if (!outcome.ok) return outcomeOfFailure(outcome.failure, `limit=${limit}`);
      const { exchange, page } = outcome;
      if (exchange.status !== 200 || !page)
        findings.push({ message: `limit=${limit} answered ${statusAndBody(exchange)}`, expected: '200 with an EventPage', exchange });
      else if (page.items.length > limit)
        findings.push({ message: `limit=${limit} returned ${page.items.length} events`, expected: `at most ${limit}`, exchange });
    }
    return verdict(findings);
  },
});

export function errorChecks(contract: SearchContract): Check[] {
  const declared = REJECTIONS.filter(
    (rejection) => rejection.parameter === 'conversation_id' || queryParameter(contract.search, rejection.parameter),
  );
  return [notFound, ...limitRejections(contract).map(rejectionCheck), ...declared.map(rejectionCheck), limitBoundsAccepted(contract)];
}
