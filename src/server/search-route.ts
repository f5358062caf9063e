import type { Request, RequestHandler, Response } from 'express';
import type { SearchQuery } from '../contract';
import { hyphenate, kindOfFilterValue, parseFilterTimestamp, parseUuid, searchEvents } from '../search';
import type { SearchCriteria } from '../search';
import type { EventStore } from '../store/event-store';
import { HttpError } from './errors';
import { eventPageBody, sendPageBody } from './event-page';

/**
 * `GET /api/conversations/{conversation_id}/events/search`. Runs after the validator,
 * so every parameter here already has the contract's type; this turns them into search
 * criteria, answers 404 for an unknown conversation and sends the page.
 */
export function searchRoute(store: EventStore, options: { validateResponses: boolean }): RequestHandler {
  return async (req: Request, res: Response) => {
    const hex = conversationHex(String(req.params['conversation_id']));
    const index = await store.open(hex);
    if (!index) throw new HttpError(404, { detail: `Conversation not found: ${hyphenate(hex)}` });
    const page = searchEvents(index, criteriaOf(req.query as SearchQuery));
    const body = eventPageBody(page.payloads, page.nextPageId);
    // Response validation only sees what goes through res.json, so in that mode the
    // same bytes are parsed and handed to it.
    if (options.validateResponses) res.json(JSON.parse(Buffer.concat(body).toString('utf8')));
    else sendPageBody(res, body);
  };
}

function conversationHex(conversationId: string): string {
  const parsed = parseUuid(conversationId);
  if (!parsed.ok) throw new Error(`conversation_id passed validation but does not parse: ${parsed.message}`);
  return parsed.hex;
}

/** Seed section 4.1 defaults: limit 100, ascending. */
export function criteriaOf(query: SearchQuery): SearchCriteria {
  const criteria: SearchCriteria = { limit: query.limit ?? 100, sortOrder: query.sort_order ?? 'TIMESTAMP' };
  if (typeof query.kind === 'string') criteria.kind = kindOfFilterValue(query.kind) ?? null;
  if (typeof query.source === 'string') criteria.source = query.source;
  if (typeof query.body === 'string') criteria.body = query.body.toLowerCase();
  if (typeof query.page_id === 'string') criteria.pageId = query.page_id;
  if (typeof query.timestamp__gte === 'string') criteria.gte = instant(query.timestamp__gte);
  if (typeof query.timestamp__lt === 'string') criteria.lt = instant(query.timestamp__lt);
  return criteria;
}

function instant(value: string): number {
  const parsed = parseFilterTimestamp(value);
  if (!parsed.ok) throw new Error(`timestamp passed validation but does not parse: ${parsed.message}`);
  return parsed.micros;
}
