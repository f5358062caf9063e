import { renderJson, renderJunit, renderText } from '../../src/kit/run/report';
import { FAULTS, startFaultInjector } from './support/fault-injector';
import { startOurServer, type OurServer } from './support/our-server';
import { allChecksOf, runKit } from './support/run-kit';

/* --session-api-key: sent on every request, never written anywhere. */
const KEY = 'sk-kit-session-key-0123456789';

let ours: OurServer;
beforeAll(async () => {
  ours = await startOurServer({ events: 80, seed: 'kit-key', sessionApiKeys: [KEY] });
});
afterAll(() => ours.stop());

it('without the key the kit cannot run, and says which flag to pass', async () => {
  const result = await runKit({ baseUrl: ours.url, conversationId: ours.conversationId });
  expect(result.outcome).toBe('cannot-run');
  expect(result.problem).toBe('The server refused the request (401): it requires a session key. Pass --session-api-key KEY or set SESSION_API_KEY.');
});

it('with the key it runs; reports show $SESSION_API_KEY in curl lines and never the key', async () => {
  const proxy = await startFaultInjector(ours.url, FAULTS.limit101Accepted);
  try {
    const result = await runKit({
      baseUrl: proxy.url,
      conversationId: ours.conversationId,
      sessionApiKey: KEY,
      levels: ['seed'],
      only: ['errors.', 'paging.exactly-once'],
    });
    const failing = allChecksOf(result).filter((check) => check.status === 'failed');
    expect(failing.map((check) => check.id)).toEqual(['errors.limit-above-max']);
    expect(failing[0]!.findings[0]!.request!.curl).toContain('-H "X-Session-API-Key: $SESSION_API_KEY"');
    for (const rendered of [renderText(result), renderJunit(result), renderJson(result)]) expect(rendered).not.toContain(KEY);
  } finally {
    await proxy.stop();
  }
});
