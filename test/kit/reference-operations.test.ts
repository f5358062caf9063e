import { FAULTS, startFaultInjector } from './support/fault-injector';
import { startOurServer, type OurServer } from './support/our-server';
import { allChecksOf, notPassed, runKit } from './support/run-kit';

/* The reference-level checks of count and get-by-id against our real server. */
let ours: OurServer;
beforeAll(async () => {
  ours = await startOurServer({ events: 80, seed: 'kit-operations' });
});
afterAll(() => ours.stop());

const OPERATION_CHECKS = ['ref.count.', 'ref.get-event.', 'ref.properties.count', 'ref.errors.count-', 'ref.errors.get-event-'];

it('our server passes every count and get-by-id check', async () => {
  const result = await runKit({ baseUrl: ours.url, conversationId: ours.conversationId, levels: ['reference'], only: OPERATION_CHECKS });
  expect(notPassed(result)).toEqual([]);
  expect(
    allChecksOf(result)
      .map((check) => check.id)
      .sort(),
  ).toEqual([
    'ref.count.matches-walk',
    'ref.errors.count-not-found-body',
    'ref.errors.count-order-of-items',
    'ref.errors.count-timestamp-garbage',
    'ref.errors.count-timestamp-impossible-date',
    'ref.errors.count-uuid',
    'ref.errors.get-event-not-found-body',
    'ref.errors.get-event-uuid',
    'ref.get-event.reserved-words',
    'ref.get-event.same-as-walk',
    'ref.get-event.unknown-id',
    'ref.properties.count',
  ]);
  expect(allChecksOf(result).find((check) => check.id === 'ref.get-event.same-as-walk')?.details).toBe('all 80 events fetched by id');
});

it('a server without count and get-by-id gets "not implemented" for those checks, not a failure', async () => {
  const proxy = await startFaultInjector(ours.url, FAULTS.withoutCountAndGetEvent);
  try {
    const result = await runKit({ baseUrl: proxy.url, conversationId: ours.conversationId, levels: ['reference'], only: OPERATION_CHECKS });
    expect(result.outcome).toBe('passed');
    const statuses = allChecksOf(result).map((check) => [check.id, check.status]);
    expect(statuses.every(([, status]) => status === 'not-implemented')).toBe(true);
    const count = allChecksOf(result).find((check) => check.id === 'ref.count.matches-walk')!;
    expect(count.details).toMatch(
      /^the server has no GET \/api\/conversations\/\{conversation_id\}\/events\/count \(countConversationEvents\): .* answered 404 \{"detail":"Not Found"\}/,
    );
  } finally {
    await proxy.stop();
  }
});

/* Each new check catches a fault: our server behind a proxy that breaks one rule of the new operations. */
const CASES: [keyof typeof FAULTS, string][] = [
  ['countOffByOneWithFilters', 'ref.count.matches-walk'],
  ['countOffByOneWithFilters', 'ref.properties.count'],
  ['getEventDropsTimestamp', 'ref.get-event.same-as-walk'],
  ['unknownEventIdIs500', 'ref.get-event.unknown-id'],
  ['countTakenAsId', 'ref.get-event.reserved-words'],
  ['countServerErrorOnMalformedDate', 'ref.errors.count-timestamp-garbage'],
];

it.each(CASES)('%s is caught by %s', async (fault, checkId) => {
  const proxy = await startFaultInjector(ours.url, FAULTS[fault]);
  try {
    const result = await runKit({ baseUrl: proxy.url, conversationId: ours.conversationId, levels: ['reference'], only: [checkId] });
    const check = allChecksOf(result).find((candidate) => candidate.id === checkId)!;
    expect(check.status).toBe('failed');
    expect(result.outcome).toBe('failed');
    const withRequest = check.findings.find((finding) => finding.request);
    expect(withRequest?.request?.curl).toMatch(/^curl -sS -g '.*\/api\/conversations\/\w+\/events\//);
  } finally {
    await proxy.stop();
  }
});
