import type { SearchCriteria } from '../../src/search';
import type { StoredPage } from '../../src/store/event-store';
import { KeptFirstPages } from '../../src/store/sqlite/kept-first-pages';

const CONVERSATION = 'a3c1e0f2b4d64f0e9c7a5b3d1e2f4a6b';
const FIRST_PAGE: SearchCriteria = { limit: 100, sortOrder: 'TIMESTAMP' };

function pageOf(...events: string[]): StoredPage {
  return { itemsJson: events.map((event) => Buffer.from(event)), nextPageId: null };
}

function text(page: StoredPage | undefined): string | undefined {
  return page?.itemsJson.map((piece) => piece.toString()).join(',');
}

describe('first pages kept between reads', () => {
  it('keeps a first page from its second read, while its conversation is not written to', () => {
    const kept = new KeptFirstPages(1024 * 1024);
    kept.keep(CONVERSATION, FIRST_PAGE, 7, pageOf('{"id":"a"}', '{"id":"b"}'));
    expect(kept.find(CONVERSATION, FIRST_PAGE, 7)).toBeUndefined();

    kept.keep(CONVERSATION, FIRST_PAGE, 7, pageOf('{"id":"a"}', '{"id":"b"}'));
    expect(text(kept.find(CONVERSATION, FIRST_PAGE, 7))).toBe('{"id":"a"},{"id":"b"}');
    expect(kept.find(CONVERSATION, FIRST_PAGE, 8)).toBeUndefined();
  });

  it('does not keep a page whose two reads saw different writes, nor another query or conversation', () => {
    const kept = new KeptFirstPages(1024 * 1024);
    kept.keep(CONVERSATION, FIRST_PAGE, 1, pageOf('{"id":"old"}'));
    kept.keep(CONVERSATION, FIRST_PAGE, 2, pageOf('{"id":"new"}'));
    expect(kept.find(CONVERSATION, FIRST_PAGE, 2)).toBeUndefined();

    kept.keep(CONVERSATION, { ...FIRST_PAGE, kind: 'MessageEvent' }, 2, pageOf('{"id":"message"}'));
    kept.keep('00000000000040008000000000000000', FIRST_PAGE, 2, pageOf('{"id":"other"}'));
    expect(kept.find(CONVERSATION, FIRST_PAGE, 2)).toBeUndefined();

    kept.keep(CONVERSATION, FIRST_PAGE, 2, pageOf('{"id":"new"}'));
    expect(text(kept.find(CONVERSATION, FIRST_PAGE, 2))).toBe('{"id":"new"}');
  });

  it('never keeps a page after a cursor', () => {
    const kept = new KeptFirstPages(1024 * 1024);
    const afterCursor: SearchCriteria = { ...FIRST_PAGE, pageId: 'b' };
    for (let read = 0; read < 3; read++) kept.keep(CONVERSATION, afterCursor, 1, pageOf('{"id":"b"}'));
    expect(kept.find(CONVERSATION, afterCursor, 1)).toBeUndefined();
  });

  it('drops the least recently asked page past its bound', () => {
    // Pages of 20 bytes (with their comma) under a bound of 80: four fit.
    const kept = new KeptFirstPages(80);
    const pageNamed = (name: string) => pageOf(`{"id":"${name.padEnd(10, '.')}"}`);
    for (const conversation of ['c1', 'c2', 'c3', 'c4']) {
      kept.keep(conversation, FIRST_PAGE, 1, pageNamed(conversation));
      kept.keep(conversation, FIRST_PAGE, 1, pageNamed(conversation));
    }
    expect(kept.find('c1', FIRST_PAGE, 1)).toBeDefined();
    kept.keep('c5', FIRST_PAGE, 1, pageNamed('c5'));
    kept.keep('c5', FIRST_PAGE, 1, pageNamed('c5'));
    expect(kept.find('c2', FIRST_PAGE, 1)).toBeUndefined();
    for (const conversation of ['c1', 'c3', 'c4', 'c5']) expect(kept.find(conversation, FIRST_PAGE, 1)).toBeDefined();
  });
});
