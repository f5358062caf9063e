/**
 * What the reference accepts beyond the seed's letter (docs/reference-behaviour.md, "Search" and "Accepted values and errors"):
 * other spellings of the conversation id, lenient integers, naive and other timestamp
 * forms, unencoded `:`, unknown parameters, and fully qualified kind names. Each must
 * give the same answer as the plain form.
 */
import type { SearchContract } from '../../search-contract';
import type { CheckContext } from '../context';
import { hyphenated, uuidHex } from '../conversation-id';
import { classPathOf, isContractKind } from '../event-kinds';
import { describeFilters, expectedEvents, firstMismatch, type Filters } from '../expectations';
import type { Exchange } from '../../http';
import { pageOf } from '../search-request';
import { localOffsetAt, utcForm, withLocalOffset } from '../timestamp-values';
import { skipped, verdict, type Check, type Finding } from '../types';
import { judgeFilterCases, timedAt } from './filters';
import { exchangeField, exchangeOrOutcome, statusAndBody, unfinishedWalk } from './support';

const FIRST_PAGE = 5;

/** The first page's event keys for a raw request, compared with what the plain request gave. */
async function sameFirstPage(context: CheckContext, path: string, want: string[], what: string): Promise<Finding[] | { skip: string }> {
  const sent = exchangeOrOutcome(await context.get(path), what);
  if ('outcome' in sent)
    return sent.outcome.status === 'skipped' ? { skip: sent.outcome.details } : sent.outcome.status === 'failed' ? sent.outcome.findings : [];
  return pageFindings(sent.exchange, want, what);
}

function pageFindings(exchange: Exchange, want: string[], what: string): Finding[] {
  const page = pageOf(exchange);
  if (!page) return [{ message: `${what} answered ${statusAndBody(exchange)}`, expected: '200 with an EventPage', exchange }];
  const got = page.items.map((item) => ((item as { id?: unknown } | null)?.id as string | undefined) ?? JSON.stringify(item));
  if (JSON.stringify(got) === JSON.stringify(want)) return [];
  return [
    {
      message: `${what} returned ${got.length} events [${got.slice(0, 5).join(', ')}]`,
      expected: `the same ${want.length} events as the plain request [${want.slice(0, 5).join(', ')}]`,
      exchange,
    },
  ];
}

function firstKeys(context: CheckContext, count: number): string[] {
  return context.data.events.slice(0, count).map((event) => event.key);
}

function conversationIdForms(conversationId: string): [string, string][] {
  const hex = uuidHex(conversationId);
  if (hex === undefined) return [];
  const grouped = hyphenated(hex);
  return [
    ['id-32-hex', hex],
    ['id-upper-case', grouped.toUpperCase()],
    ['id-braces', `{${grouped}}`],
    ['id-urn', `urn:uuid:${grouped}`],
  ];
}

const ID_FORM_TITLES: Record<string, string> = {
  'id-32-hex': 'the conversation id as 32 hex digits without hyphens (as the OpenHands app server sends it) is accepted',
  'id-upper-case': 'the conversation id in upper case is accepted',
  'id-braces': 'the conversation id in {braces} is accepted',
  'id-urn': 'the conversation id with a urn:uuid: prefix is accepted',
};

function idFormCheck(form: string): Check {
  return {
    id: `ref.accepts.${form}`,
    level: 'reference',
    title: ID_FORM_TITLES[form]!,
    async run(context) {
      const spelled = conversationIdForms(context.conversationId).find(([name]) => name === form)?.[1];
      if (spelled === undefined) return skipped('the conversation id given is not a UUID');
      const result = await sameFirstPage(
        context,
        context.searchPath(spelled, `limit=${FIRST_PAGE}`),
        firstKeys(context, FIRST_PAGE),
        `conversation id ${spelled}`,
      );
      return 'skip' in result ? skipped(result.skip) : verdict(result);
    },
  };
}

function rawQueryCheck(id: string, title: string, query: string, count: number | ((context: CheckContext) => number)): Check {
  return {
    id,
    level: 'reference',
    title,
    async run(context) {
      const result = await sameFirstPage(
        context,
        context.searchPath(undefined, query),
        firstKeys(context, typeof count === 'number' ? count : count(context)),
        `?${query}`,
      );
      return 'skip' in result ? skipped(result.skip) : verdict(result);
    },
  };
}

const unencodedColon: Check = {
  id: 'ref.accepts.unencoded-colon',
  level: 'reference',
  title: 'an unencoded ":" in a timestamp value (as curl sends it) is accepted',
  async run(context) {
    const boundary = timedAt(context, 0.5);
    if (!boundary?.timestamp) return skipped('no event with a readable timestamp');
    const value = boundary.timestamp;
    const want = expectedEvents(context.data.events, { timestamp__gte: value })
      .slice(0, context.contract.pageSize.maximum)
      .map((event) => event.key);
    // Only characters that need no encoding besides ':' are left raw, so the request is otherwise ordinary.
    const raw = encodeURIComponent(value).replaceAll('%3A', ':');
    const result = await sameFirstPage(
      context,
      context.searchPath(undefined, `limit=${context.contract.pageSize.maximum}&timestamp__gte=${raw}`),
      want,
      `timestamp__gte=${raw}`,
    );
    return 'skip' in result ? skipped(result.skip) : verdict(result);
  },
};

/** The instant of a stored timestamp written in every form the reference accepts. */
function timestampForms(stored: string, micros: number): [string, string][] {
  const naive = stored.replace(/[zZ]$|[+-]\d{2}:?\d{2}$/, '');
  const date = naive.slice(0, 10);
  const plusFive = utcForm(micros + 5 * 3600 * 1_000_000).replace('Z', '+05:00');
  return [
    ['date only', date],
    ['minutes, no seconds', naive.slice(0, 16)],
    ['space separator', `${date} ${naive.slice(11)}`],
    ['naive with microseconds', naive],
    ['Z', utcForm(micros)],
    ['+05:00', plusFive],
    ['unix seconds', String(Math.floor(micros / 1_000_000))],
  ];
}

const timestampFormCases = (context: CheckContext): Filters[] => {
  const boundary = timedAt(context, 0.5);
  if (!boundary?.timestamp || boundary.micros === undefined) return [];
  return timestampForms(boundary.timestamp, boundary.micros).map(([, value]) => ({ timestamp__gte: value }));
};

const qualifiedKindCases = (context: CheckContext): Filters[] =>
  context.data.kinds.filter(isContractKind).map((kind) => ({ kind: classPathOf(kind) }));

/** The filter sets of the reference-level accept checks, for judging other operations on them. */
export function referenceFilterSets(context: CheckContext): Filters[] {
  return [...timestampFormCases(context), ...qualifiedKindCases(context)];
}

const timestampFormsAccepted: Check = {
  id: 'ref.accepts.timestamp-forms',
  level: 'reference',
  title:
    'timestamp filters accept a date, minutes without seconds, a space separator, naive values, Z, +05:00 and unix seconds, each meaning the same instant',
  async run(context) {
    const boundary = timedAt(context, 0.5);
    if (!boundary?.timestamp || boundary.micros === undefined) return skipped('no event with a readable timestamp');
    return judgeFilterCases(context, timestampFormCases(context));
  },
};

const naiveEqualsZoned: Check = {
  id: 'ref.timestamps.naive-equals-zoned',
  level: 'reference',
  title: 'a naive timestamp filter is server local time: it gives the same result as the value with the local offset and in UTC',
  async run(context) {
    const boundary = timedAt(context, 0.5);
    if (!boundary?.timestamp || boundary.micros === undefined) return skipped('no event with a readable timestamp');
    const naive = boundary.timestamp;
    const forms = [naive, withLocalOffset(naive), utcForm(boundary.micros)];
    const findings: Finding[] = [];
    for (const name of ['timestamp__gte', 'timestamp__lt'] as const) {
      const walks = await Promise.all(forms.map((value) => context.walk({ [name]: value, limit: context.contract.pageSize.maximum })));
      for (const walk of walks) {
        const unfinished = unfinishedWalk(walk, describeFilters(walk.query as Filters));
        if (unfinished) return unfinished;
      }
      const [plain, ...zoned] = walks;
      for (const walk of zoned) {
        const at = firstMismatch(walk.events, plain!.events);
        if (at === undefined) continue;
        findings.push({
          message: `${name}=${String(walk.query[name])} returned ${walk.events.length} events; the naive ${name}=${naive} returned ${plain!.events.length} (first difference at event ${at + 1})`,
          expected: `the same events: the kit's zone is ${localOffsetAt(boundary.micros)}; run it in the server's zone`,
          ...exchangeField(walk.pages[0]?.exchange),
        });
      }
    }
    return verdict(findings);
  },
};

const qualifiedKind: Check = {
  id: 'ref.kind.qualified-name',
  level: 'reference',
  title: 'kind accepts the fully qualified class path (openhands.sdk.event...) and returns exactly the events of that kind',
  // Judged against the data, not against the short name: the reference itself matches only
  // class paths (docs/reference-behaviour.md, "Search"), so its short-name results are not a yardstick.
  run: (context) => {
    const cases = qualifiedKindCases(context);
    if (cases.length === 0) return Promise.resolve(skipped('no event of a contract kind'));
    return judgeFilterCases(context, cases);
  },
};

export function referenceAcceptChecks({ pageSize }: SearchContract): Check[] {
  return [
    ...Object.keys(ID_FORM_TITLES).map(idFormCheck),
    rawQueryCheck('ref.accepts.limit-leading-space', 'limit=" 5" (a leading space) is accepted as 5', 'limit=%205', FIRST_PAGE),
    rawQueryCheck(
      'ref.accepts.limit-decimal-zero',
      `limit=${pageSize.maximum}.0 is accepted as ${pageSize.maximum}`,
      `limit=${pageSize.maximum}.0`,
      pageSize.maximum,
    ),
    rawQueryCheck('ref.accepts.unknown-parameter', 'an unknown query parameter is ignored', `limit=${FIRST_PAGE}&no_such_parameter=1`, FIRST_PAGE),
    unencodedColon,
    timestampFormsAccepted,
    naiveEqualsZoned,
    qualifiedKind,
  ];
}
