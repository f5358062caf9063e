/**
 * The kit's checks of the search across stored conversations (src/kit/checks/stored-events.ts)
 * against our real server holding several conversations whose timestamps interleave: it
 * passes them; our server behind a proxy that breaks one rule fails the check for that
 * rule; a server without the operations gets "not implemented", never a failure.
 */
import { generateConversation } from '../../src/fixture';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { conversationId } from '../support/events';
import { type Fault, type UpstreamResponse, startFaultInjector } from './support/fault-injector';
import { allChecksOf, notPassed, runKit } from './support/run-kit';

const STORED_CHECKS = ['stored.'];
const STORED_PATH = /^\/api\/stored-conversations\/events\/(search|count)$/;

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer(
    [1, 2, 3].map((n) => ({ id: conversationId(n), events: generateConversation({ events: 60, seed: `stored-kit-${n}` }) })),
    { validateResponses: true },
  );
});
afterAll(() => server.stop());

async function runThrough(fault: Fault | undefined) {
  const proxy = fault ? await startFaultInjector(server.url, fault) : undefined;
  try {
    return await runKit({ baseUrl: proxy?.url ?? server.url, conversationId: conversationId(2), levels: ['seed'], only: STORED_CHECKS });
  } finally {
    await proxy?.stop();
  }
}

it('our server passes every check of the search across stored conversations', async () => {
  const result = await runThrough(undefined);
  expect(notPassed(result)).toEqual([]);
  expect(allChecksOf(result).map((check) => check.id)).toEqual(['stored.union', 'stored.exactly-once', 'stored.count-matches-walk']);
});

it('a server without the operations (as the reference) gets "not implemented" for each, and the run passes', async () => {
  const result = await runThrough({
    request: (url) => (STORED_PATH.test(url.pathname) ? { status: 404, body: { detail: 'Not Found' } } : url),
  });
  expect(result.outcome).toBe('passed');
  for (const check of allChecksOf(result)) {
    expect(check.status).toBe('not-implemented');
    expect(check.details).toContain('the server has no search across stored conversations');
  }
});

type Page = { items: unknown[]; next_page_id: unknown };
const onStoredPages =
  (change: (url: URL, page: Page) => Page) =>
  (url: URL, response: UpstreamResponse): UpstreamResponse =>
    url.pathname.endsWith('/stored-conversations/events/search') && response.status === 200
      ? { status: 200, body: change(url, structuredClone(response.body) as Page) }
      : response;

const FAULTS: [string, Fault, string[]][] = [
  [
    'a page that is not the last drops its last hit',
    { response: onStoredPages((_url, page) => (page.next_page_id === null ? page : { ...page, items: page.items.slice(0, -1) })) },
    // The hit dropped at the seam of a limit-100 walk is another conversation's, so the union with this one's search still holds.
    ['stored.exactly-once', 'stored.count-matches-walk'],
  ],
  [
    'the count is one too many',
    {
      response: (url, response) =>
        url.pathname.endsWith('/stored-conversations/events/count') && typeof response.body === 'number'
          ? { status: 200, body: response.body + 1 }
          : response,
    },
    ['stored.count-matches-walk'],
  ],
];

it.each(FAULTS)('%s is caught', async (_name, fault, caught) => {
  const result = await runThrough(fault);
  expect(result.outcome).toBe('failed');
  const failed = allChecksOf(result)
    .filter((check) => check.status === 'failed')
    .map((check) => check.id);
  expect(failed).toEqual(caught);
});

it('hits in the wrong order across conversations are caught', async () => {
  const result = await runThrough({
    response: onStoredPages((url, page) =>
      url.searchParams.get('sort_order') === 'TIMESTAMP_DESC' ? page : { ...page, items: [...page.items].reverse() },
    ),
  });
  const failed = allChecksOf(result).filter((check) => check.status === 'failed');
  expect(failed.map((check) => check.id)).toEqual(expect.arrayContaining(['stored.union', 'stored.exactly-once']));
  expect(failed.flatMap((check) => check.findings.map((finding) => finding.message)).join('\n')).toMatch(/comes after/);
});
