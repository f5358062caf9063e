/**
 * Whether the server has the operations beyond search that the reference level judges
 * (count, get-by-id). A server without one answers its route like any unknown path,
 * `404 {"detail":"Not Found"}`, while a server that has it answers a request for an
 * unknown conversation with the search's 404 (`Conversation not found: ...`). One probe
 * per operation and run, shared by every check that needs it.
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { CheckContext } from '../context';
import { KNOWN_OPERATIONS, type SearchContract } from '../../search-contract';
import { notImplemented, skipped, type CheckOutcome } from '../types';
import { exchangeOrOutcome, statusAndBody } from './support';

export type OptionalOperation = 'count' | 'get-event';

export type Availability = { available: true } | { available: false; outcome: CheckOutcome };

const ROUTE_NOT_FOUND = { detail: 'Not Found' };
const PROBE_TAIL: Record<OptionalOperation, string> = { count: 'count', 'get-event': 'availability-probe' };
const DESCRIPTION: Record<OptionalOperation, string> = {
  count: 'GET /api/conversations/{conversation_id}/events/count (countConversationEvents)',
  'get-event': 'GET /api/conversations/{conversation_id}/events/{event_id} (getConversationEvent)',
};

const probes = new WeakMap<CheckContext, Map<OptionalOperation, Promise<Availability>>>();

/** The operation in the contract the kit judges with; absent, its checks say so rather than probe. */
const DECLARED: Record<OptionalOperation, (contract: SearchContract) => unknown> = {
  count: (contract) => contract.count,
  'get-event': (contract) => contract.getEvent,
};

export function availabilityOf(context: CheckContext, operation: OptionalOperation): Promise<Availability> {
  if (!DECLARED[operation](context.contract)) {
    const id = operation === 'count' ? KNOWN_OPERATIONS.count : KNOWN_OPERATIONS.getEvent;
    return Promise.resolve({ available: false, outcome: skipped(`the contract declares no ${id}: its checks do not apply`) });
  }
  const perContext = probes.get(context) ?? new Map<OptionalOperation, Promise<Availability>>();
  probes.set(context, perContext);
  const probe = perContext.get(operation) ?? sendProbe(context, operation);
  perContext.set(operation, probe);
  return probe;
}

async function sendProbe(context: CheckContext, operation: OptionalOperation): Promise<Availability> {
  const sent = exchangeOrOutcome(await context.get(context.eventsPath(PROBE_TAIL[operation], randomUUID())), `probing ${DESCRIPTION[operation]}`);
  if ('outcome' in sent) return { available: false, outcome: sent.outcome };
  const { exchange } = sent;
  if (exchange.status === 404 && exchange.json.ok && isDeepStrictEqual(exchange.json.value, ROUTE_NOT_FOUND)) {
    return {
      available: false,
      outcome: notImplemented(
        `the server has no ${DESCRIPTION[operation]}: a request for an unknown conversation there answered ${statusAndBody(exchange)}, the answer of an unknown route (a server with the operation answers the search's 404, "Conversation not found: ...")`,
      ),
    };
  }
  return { available: true };
}

/** Runs `judge` only when every operation it needs is there; otherwise the first "not implemented". */
export async function whenAvailable(
  context: CheckContext,
  operations: OptionalOperation[],
  judge: () => Promise<CheckOutcome>,
): Promise<CheckOutcome> {
  for (const operation of operations) {
    const availability = await availabilityOf(context, operation);
    if (!availability.available) return availability.outcome;
  }
  return judge();
}
