/** The catalogue: every check, seed level first, in the order they run. Audits run last whatever their place here. */
import type { Check } from '../types';
import { auditChecks } from './audit';
import { errorChecks } from './errors';
import { filterChecks } from './filters';
import { fixtureChecks, referenceFixtureChecks } from './fixture';
import { pagingChecks, referencePagingChecks } from './paging';
import { propertyChecks, referencePropertyChecks } from './properties';
import { referenceAcceptChecks } from './reference-accepts';
import { referenceErrorChecks } from './reference-errors';
import { referenceOperationChecks } from './reference-operations';
import { referenceSortChecks, sortChecks } from './sort';
import { socketAndCatalogChecks } from './socket-and-catalog';

export function allChecks(): Check[] {
  return [
    ...errorChecks(),
    ...pagingChecks(),
    ...filterChecks(),
    ...sortChecks(),
    ...propertyChecks(),
    ...fixtureChecks(),
    ...auditChecks(),
    ...referenceErrorChecks(),
    ...referenceAcceptChecks(),
    ...referencePagingChecks(),
    ...referenceSortChecks(),
    ...referencePropertyChecks(),
    ...referenceFixtureChecks(),
    ...referenceOperationChecks(),
    ...socketAndCatalogChecks(),
  ];
}
