/**
 * What checking every response against the contract costs: the first-page scenario on a
 * second server started with `--validate-responses`.
 */
import type { Dataset } from './datasets';
import { getOk } from './http-get';
import { searchPath } from './scenarios';
import { type OurServerOptions, spawnOurServer, waitUntilAnswering } from './server-process';
import { type LoadShape, type ServerLoadFigures, measure } from './side-by-side';

/** First page under load on a fresh server that validates responses; the server is stopped afterwards. */
export async function measureWithResponseValidation(
  dataset: Dataset,
  serverOptions: Omit<OurServerOptions, 'validateResponses'>,
  shape: LoadShape,
): Promise<ServerLoadFigures> {
  const server = await spawnOurServer('ours-validating', { ...serverOptions, validateResponses: true });
  try {
    await waitUntilAnswering(server);
    const firstPage = searchPath(dataset.conversationIdHex, { limit: '100' });
    await getOk(server.baseUrl + firstPage);
    return await measure(server, [firstPage], shape);
  } finally {
    await server.stop();
  }
}
