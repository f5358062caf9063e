import type { components } from '../contract';
import { hyphenate } from '../search';
import type { StoredHit } from '../store/event-store';
import { SerializedJson } from './operations';

type StoredEventPage = components['schemas']['StoredEventPage'];
type StoredEventHit = components['schemas']['StoredEventHit'];

const EVENT_PLACEHOLDER = '"event":null';

/**
 * The body of a page of the search across conversations, built around each hit's stored
 * event bytes as eventPageBody builds a page of one conversation: every frame is a value
 * of the contract's type, so a change to `StoredEventPage` or `StoredEventHit` fails to
 * compile here.
 */
export function storedEventPageBody(hits: readonly StoredHit[], nextPageId: string | null): SerializedJson<StoredEventPage> {
  const page: StoredEventPage = { items: [], next_page_id: nextPageId };
  const pageJson = JSON.stringify(page);
  const itemsAt = pageJson.indexOf('"items":[]') + '"items":['.length;
  const parts: Buffer[] = [Buffer.from(pageJson.slice(0, itemsAt))];
  hits.forEach((hit, i) => {
    const frame: Omit<StoredEventHit, 'event'> & { event: null } = { conversation_id: hyphenate(hit.key.hex), title: hit.title, event: null };
    const frameJson = JSON.stringify(frame);
    const eventAt = frameJson.indexOf(EVENT_PLACEHOLDER) + '"event":'.length;
    parts.push(Buffer.from(`${i > 0 ? ',' : ''}${frameJson.slice(0, eventAt)}`), hit.json, Buffer.from(frameJson.slice(eventAt + 'null'.length)));
  });
  parts.push(Buffer.from(pageJson.slice(itemsAt)));
  return new SerializedJson(parts);
}
