import { FAULTS, startFaultInjector, type FaultName } from './support/fault-injector';
import { startOurServer, type OurServer } from './support/our-server';
import { INJECTED_SEARCH_FAULTS } from './support/injected-faults';
import { allChecksOf, failedIds, notPassed, runKit } from './support/run-kit';

/*
 * Proof that the kit catches faults: our real server behind a proxy that breaks exactly
 * one rule. Each fault must fail the check that names it, with a finding that carries the
 * request and a curl line. Seed level only: every named check is a seed check, and the
 * reference level adds run time, not proof. Behind the bare proxy every seed check runs; behind
 * a fault, the check that names it (the kit's checks are independent of each other, so the
 * others' verdicts on the fault add run time, not proof: test/kit/fault-table.test.ts runs the
 * kit's checks of an operation against faults spread over all of them).
 */
const CASES = INJECTED_SEARCH_FAULTS.map(({ fault, check }): [FaultName, string] => [fault, check]);

let ours: OurServer;
beforeAll(async () => {
  ours = await startOurServer({ events: 80, seed: 'kit-faults' });
});
afterAll(() => ours.stop());

async function runBehind(fault: FaultName, only?: string) {
  const proxy = await startFaultInjector(ours.url, FAULTS[fault]);
  try {
    return await runKit({ baseUrl: proxy.url, conversationId: ours.conversationId, levels: ['seed'], ...(only ? { only: [only] } : {}) });
  } finally {
    await proxy.stop();
  }
}

it('the proxy alone changes nothing: every seed check passes through it', async () => {
  const result = await runBehind('none');
  expect(notPassed(result)).toEqual([]);
});

it.each(CASES)('%s is caught by %s', async (fault, checkId) => {
  const result = await runBehind(fault, checkId);
  expect(allChecksOf(result).map((check) => check.id)).toEqual([checkId]);
  expect(result.outcome).toBe('failed');
  expect(failedIds(result)).toContain(checkId);
  const check = allChecksOf(result).find((candidate) => candidate.id === checkId)!;
  const withRequest = check.findings.find((finding) => finding.request);
  expect(withRequest?.request?.curl).toMatch(/^curl -sS -g '.*\/api\/conversations\/.*\/events\/search/);
  expect(withRequest?.response?.status).toEqual(expect.any(Number));
});
