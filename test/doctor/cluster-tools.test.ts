import { checkHelmVersion, listStorageClasses, type StorageClassListing } from '../../src/doctor/cluster-tools';
import { createCommandRunner } from '../../src/doctor/command-runner';
import type { CheckStatus } from '../../src/doctor/report';
import { HEALTHY_TOOLS, makeFakeToolDir, type FakeTools } from './fake-tools';

async function withTools<T>(tools: FakeTools, use: (searchPath: string) => Promise<T>): Promise<T> {
  const fake = await makeFakeToolDir(tools);
  try {
    return await use(fake.dir);
  } finally {
    await fake.remove();
  }
}

describe('listStorageClasses', () => {
  const cases: Array<[string, { given: FakeTools; want: StorageClassListing }]> = [
    ['reads the names kubectl prints', { given: HEALTHY_TOOLS, want: { kind: 'listed', names: ['standard', 'gp2'] } }],
    ['an empty cluster lists none', { given: { kubectl: 'true' }, want: { kind: 'listed', names: [] } }],
    ['kubectl missing from PATH', { given: {}, want: { kind: 'kubectl-absent' } }],
    [
      'kubectl failing gives its closing summary line, not the log noise before it',
      {
        given: {
          kubectl:
            'echo \'E1121 07:39:18.662197   14233 memcache.go:265] "Unhandled Error" err="connection refused"\' >&2; ' +
            'echo "The connection to the server localhost:8080 was refused - did you specify the right host or port?" >&2; exit 1',
        },
        want: { kind: 'kubectl-failed', reason: 'The connection to the server localhost:8080 was refused - did you specify the right host or port?' },
      },
    ],
  ];
  test.each(cases)('%s', async (_name, { given, want }) => {
    await withTools(given, async (searchPath) => {
      expect(await listStorageClasses(createCommandRunner({ searchPath }))).toEqual(want);
    });
  });

  test('asks kubectl exactly "get storageclass -o name"', async () => {
    await withTools({ kubectl: 'echo "storageclass.storage.k8s.io/$*"' }, async (searchPath) => {
      expect(await listStorageClasses(createCommandRunner({ searchPath }))).toEqual({ kind: 'listed', names: ['get storageclass -o name'] });
    });
  });

  test('a kubectl that hangs is stopped by the time limit', async () => {
    await withTools({ kubectl: 'read never' }, async (searchPath) => {
      const listing = await listStorageClasses(createCommandRunner({ searchPath, timeoutMs: 200 }));
      expect(listing).toEqual({ kind: 'kubectl-failed', reason: 'it did not finish in time' });
    });
  });
});

describe('checkHelmVersion', () => {
  const cases: Array<[string, { given: FakeTools; want: { status: CheckStatus; message: string } }]> = [
    ['v4 passes', { given: HEALTHY_TOOLS, want: { status: 'pass', message: 'helm v4.0.1+g1a2b3c4' } }],
    ['v5 passes', { given: { helm: 'echo v5.1.0' }, want: { status: 'pass', message: 'helm v5.1.0' } }],
    [
      'v3 fails',
      { given: { helm: 'echo "v3.14.2+gc309b6f"' }, want: { status: 'fail', message: 'helm v3.14.2+gc309b6f is older than the required v4' } },
    ],
    ['absent is skipped with a note', { given: {}, want: { status: 'warn', message: 'helm is not on PATH, so its version was not checked' } }],
    [
      'unreadable output warns',
      { given: { helm: 'echo "unknown build"' }, want: { status: 'warn', message: 'could not read a version from "unknown build"' } },
    ],
    [
      'a failing helm warns',
      { given: { helm: 'echo "broken plugin" >&2; exit 3' }, want: { status: 'warn', message: 'helm version --short failed: broken plugin' } },
    ],
    [
      'a failing helm without output names its exit code',
      { given: { helm: 'exit 3' }, want: { status: 'warn', message: 'helm version --short failed: it exited with code 3' } },
    ],
  ];
  test.each(cases)('%s', async (_name, { given, want }) => {
    await withTools(given, async (searchPath) => {
      const check = await checkHelmVersion(createCommandRunner({ searchPath }));
      expect({ status: check.status, message: check.message }).toEqual(want);
    });
  });
});
