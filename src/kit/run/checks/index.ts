/** The catalogue: every check, seed level first, in the order they run. Audits run last whatever their place here. */
import type { SearchContract } from '../../search-contract';
import type { Check } from '../types';
import { auditChecks } from './audit';
import { errorChecks } from './errors';
import { filterChecks } from './filters';
import { operationChecks } from './operations';
import { fixtureChecks, referenceFixtureChecks } from './fixture';
import { pagingChecks, referencePagingChecks } from './paging';
import { propertyChecks, referencePropertyChecks } from './properties';
import { referenceAcceptChecks } from './reference-accepts';
import { referenceErrorChecks } from './reference-errors';
import { referenceOperationChecks } from './reference-operations';
import { referenceSortChecks, sortChecks } from './sort';
import { storedEventChecks } from './stored-events';
import { sessionSocketChecks } from './session-socket';
import { socketAndCatalogChecks } from './socket-and-catalog';

/** The checks for one contract: the values they send and expect are the document's. */
export function allChecks(contract: SearchContract): Check[] {
  return [
    ...errorChecks(contract),
    ...pagingChecks(),
    ...filterChecks(),
    ...sortChecks(),
    ...propertyChecks(),
    ...fixtureChecks(),
    ...operationChecks(contract),
    ...storedEventChecks(),
    ...auditChecks(),
    ...referenceErrorChecks(contract),
    ...referenceAcceptChecks(contract),
    ...referencePagingChecks(),
    ...referenceSortChecks(),
    ...referencePropertyChecks(),
    ...referenceFixtureChecks(),
    ...referenceOperationChecks(),
    ...socketAndCatalogChecks(),
    ...sessionSocketChecks(),
  ];
}
