/**
 * The kit's socket and catalog checks: our real server passes them, and a store or catalog
 * with one fault injected (a resend that drops an event, a catalog page that repeats an
 * item, a get that answers another conversation) fails the check that judges it.
 */
import type { CatalogSearch } from '../../src/catalog';
import { conversationId } from '../support/events';
import { writeConversationState } from '../support/conversation-state';
import { startOurServer, type OurServer } from './support/our-server';
import { allChecksOf, failedIds, notPassed, runKit } from './support/run-kit';

const CHECKS = ['ref.socket.', 'ref.catalog.'];

/** Five more conversations with saved states, two of them errored, for the catalog checks to page through. */
function moreConversations(conversations: string): void {
  for (let n = 1; n <= 5; n++) {
    writeConversationState(conversations, conversationId(n), {
      createdAt: `2026-11-0${n}T10:00:00.000001`,
      updatedAt: `2026-11-0${n}T12:00:00.000001`,
      status: n % 2 ? 'finished' : 'error',
    });
  }
}

describe('on our server', () => {
  let ours: OurServer;
  beforeAll(async () => {
    ours = await startOurServer({ events: 150, seed: 'kit-socket', writeMore: moreConversations, sessionApiKeys: ['kit-key'] });
  });
  afterAll(() => ours.stop());

  it('passes every socket and catalog check', async () => {
    const result = await runKit({
      baseUrl: ours.url,
      conversationId: ours.conversationId,
      levels: ['reference'],
      only: CHECKS,
      sessionApiKey: 'kit-key',
    });
    expect(notPassed(result)).toEqual([]);
    expect(
      allChecksOf(result)
        .map((check) => check.id)
        .sort(),
    ).toEqual([
      'ref.catalog.count-matches-walk',
      'ref.catalog.get-equals-search-item',
      'ref.catalog.paging-exactly-once',
      'ref.socket.resend-all',
      'ref.socket.resend-since',
      'ref.socket.unknown-4004',
      'ref.socket.wrong-key-4001',
    ]);
  });
});

describe('with a fault injected', () => {
  let faulty: OurServer;
  beforeAll(async () => {
    faulty = await startOurServer({
      events: 150,
      seed: 'kit-socket-faults',
      writeMore: moreConversations,
      inject: ({ store, catalog }) => ({
        // The resend loses the last event of every page.
        store: Object.assign(Object.create(store) as typeof store, {
          feed: {
            ...store.feed!,
            searchEach: async (...args: Parameters<NonNullable<typeof store.feed>['searchEach']>) => {
              const page = await store.feed!.searchEach(...args);
              return page && { ...page, events: page.events.slice(0, -1) };
            },
          },
        }),
        catalog: Object.assign(Object.create(catalog) as typeof catalog, {
          // A page after the first starts one conversation early, so that one is listed twice; get answers the first conversation whatever is asked.
          search: async (query: CatalogSearch) => {
            const page = await catalog.search(query);
            if (query.pageId === undefined) return page;
            const previous = await catalog.search({ ...query, pageId: undefined, limit: 100 });
            const at = previous.items.findIndex((item) => item.id.replaceAll('-', '') === query.pageId);
            return at > 0 ? { ...page, items: [previous.items[at - 1]!, ...page.items].slice(0, query.limit) } : page;
          },
          get: async (_hex: string, includeSkills: boolean) => (await catalog.search({ sortOrder: 'CREATED_AT', limit: 1, includeSkills })).items[0],
        }),
      }),
    });
  });
  afterAll(() => faulty.stop());

  it('fails the checks that judge the faulty parts, and only those', async () => {
    const result = await runKit({ baseUrl: faulty.url, conversationId: faulty.conversationId, levels: ['reference'], only: CHECKS });
    // The count check walks with limit 100, one page, which the fault does not touch; 4004 and the key check judge nothing faulty.
    expect(failedIds(result).sort()).toEqual([
      'ref.catalog.get-equals-search-item',
      'ref.catalog.paging-exactly-once',
      'ref.socket.resend-all',
      'ref.socket.resend-since',
    ]);
  });
});
