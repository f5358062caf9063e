/**
 * `npm run bench -- --against REF [--quick]`: before and after in one run. REF (a commit,
 * branch or tag of this repository) is checked out into a temporary git worktree and built
 * there, then its compiled server and this checkout's take turns on the same conversations
 * (10k, and 100k in a full run; builds-side-by-side.ts): first page and a page at another
 * cursor on every request under load, the cold open and the memory the moment the first page
 * has arrived. Reported as this checkout / REF, round by round and over all rounds, so that a
 * change can be judged on one machine state instead of two runs hours apart.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type BuildTurnFigures, type BuildsSideBySideFigures, measureBuildsSideBySide } from './builds-side-by-side';
import { type Dataset, ensureDataset } from './datasets';
import { describeCommit } from './environment';
import { npmEnvironment } from './installed-package';
import { benchPlan } from './plan';
import type { OurServerOptions } from './server-process';
import { type RunCircumstances, runStarted } from './run';

const run = promisify(execFile);
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const COMPILED_START = 'dist/src/cli/start.js';

/** REF names nothing this repository has: a mistake in the command line, not a failure of the bench. */
export class UnknownRefError extends Error {}

export interface AgainstRefOptions {
  readonly ref: string;
  readonly quick: boolean;
  readonly repoRoot: string;
  readonly dataDirectory: string;
  readonly serverNodeFlags: readonly string[];
}

export interface AgainstRefResults extends RunCircumstances {
  readonly ref: string;
  /** `<short hash> <subject>` of the commit REF named. */
  readonly refCommit: string;
  readonly checkoutCommit: string;
  /** How REF got its node_modules: this checkout's, linked (same lock file and patches), or its own `npm ci`. */
  readonly nodeModules: 'linked' | 'installed';
  readonly conversations: readonly { readonly dataset: Dataset; readonly figures: BuildsSideBySideFigures }[];
}

/** A commit built in a temporary worktree, while `use` runs. */
export interface RefBuild {
  /** The worktree, holding the compiled package (dist/src/cli/start.js). */
  readonly tree: string;
  /** `<short hash> <subject>`. */
  readonly refCommit: string;
  readonly label: string;
  readonly nodeModules: 'linked' | 'installed';
}

/** Checks REF out into a temporary worktree, builds it, runs `use` on it, and removes the worktree. */
export async function withRefBuild<T>(
  repoRoot: string,
  ref: string,
  logs: string,
  progress: (line: string) => void,
  use: (build: RefBuild) => Promise<T>,
): Promise<T> {
  const git = (...args: string[]) => run('git', args, { cwd: repoRoot, maxBuffer: 16 * 2 ** 20 }).then((result) => result.stdout.trim());
  const hash = await git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`).catch(() => {
    throw new UnknownRefError(`--against ${ref} names no commit of this repository; pass a commit, branch or tag (git log --oneline shows them)`);
  });
  const refCommit = await git('log', '-1', '--format=%h %s', hash);
  mkdirSync(logs, { recursive: true });
  const temporary = mkdtempSync(path.join(os.tmpdir(), 'bench-against-'));
  const tree = path.join(temporary, 'tree');
  try {
    progress(`--against ${ref}: a worktree of ${refCommit} in ${tree}`);
    await git('worktree', 'add', '--detach', tree, hash);
    const nodeModules = await prepareNodeModules(repoRoot, tree, hash, path.join(logs, `against-${hash.slice(0, 12)}-build.log`), progress);
    if (!existsSync(path.join(tree, COMPILED_START))) throw new Error(`${ref} built, but has no ${COMPILED_START} to start`);
    return await use({ tree, refCommit, label: hash.slice(0, 7), nodeModules });
  } finally {
    await git('worktree', 'remove', '--force', tree).catch(() => undefined);
    rmSync(temporary, { recursive: true, force: true });
    await git('worktree', 'prune').catch(() => undefined);
  }
}

export async function runAgainstRef(options: AgainstRefOptions, progress: (line: string) => void): Promise<AgainstRefResults> {
  const circumstances = runStarted();
  const plan = benchPlan(options.quick);
  const conversationsRoot = path.join(options.dataDirectory, 'conversations');
  const datasets = plan.conversations.map((spec) => ensureDataset(spec, conversationsRoot, path.join(options.dataDirectory, 'markers'), progress));
  const logs = path.join(options.dataDirectory, 'logs');
  const server = (label: string): Omit<OurServerOptions, 'validateResponses'> => ({
    repoRoot: options.repoRoot,
    conversationsRoot,
    nodeFlags: options.serverNodeFlags,
    logFile: path.join(logs, `${label}.log`),
  });

  return withRefBuild(options.repoRoot, options.ref, logs, progress, async ({ tree, refCommit, label, nodeModules }) => {
    const conversations = [];
    for (const dataset of datasets) {
      progress(`${dataset.spec.label}: this checkout beside ${label}`);
      const figures = await measureBuildsSideBySide(
        dataset,
        { otherRoot: tree, otherLabel: label, server, rotatingPage: true, warmUp: true },
        plan.load,
        progress,
      );
      conversations.push({ dataset, figures });
    }
    return {
      ref: options.ref,
      refCommit,
      checkoutCommit: describeCommit(options.repoRoot),
      nodeModules,
      ...circumstances.end(plan),
      conversations,
    };
  });
}

/**
 * The same lock file and patches as this checkout: its node_modules serve the ref as they
 * are, linked, and the ref's own build runs on them. Otherwise the ref gets its own `npm ci`,
 * which patches and builds as `prepare` says at that commit.
 */
async function prepareNodeModules(
  repoRoot: string,
  tree: string,
  hash: string,
  logFile: string,
  progress: (line: string) => void,
): Promise<'linked' | 'installed'> {
  const same = await run('git', ['diff', '--quiet', hash, '--', 'package-lock.json', 'patches'], { cwd: repoRoot }).then(
    () => true,
    () => false,
  );
  const env = npmEnvironment();
  const inTree = async (args: string[]) => {
    try {
      await run(NPM, args, { cwd: tree, env, maxBuffer: 64 * 2 ** 20 });
    } catch (error) {
      const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
      writeFileSync(logFile, `${stdout}\n${stderr}`);
      throw new Error(`npm ${args.join(' ')} failed in the worktree of ${hash.slice(0, 7)}; its output is in ${logFile}`);
    }
  };
  if (same) {
    symlinkSync(path.join(repoRoot, 'node_modules'), path.join(tree, 'node_modules'), 'dir');
    progress('  same package-lock.json and patches/: node_modules linked; npm run build');
    await inTree(['run', 'build']);
    return 'linked';
  }
  progress('  package-lock.json or patches/ differ: npm ci (it builds)');
  await inTree(['ci', '--no-audit', '--no-fund']);
  return 'installed';
}

/** The run as a Markdown section for bench/RESULTS.md. */
export function renderAgainstRef(results: AgainstRefResults): string {
  const when = results.startedAt.toISOString().replace('T', ' ').slice(0, 16);
  const { machine, plan } = results;
  const other = results.refCommit.split(' ')[0]!;
  const busiest = Math.max(results.loadAverageAtStart, results.loadAverageAtEnd);
  const busy = busiest > machine.cores ? ' (**busy**: req/s and times are noisy; CPU per request is the steadier figure)' : '';
  const sections = results.conversations.map(({ dataset, figures }) => conversationSection(dataset, figures, other));
  return `## ${when} UTC, this checkout beside ${results.ref} (${plan.mode} run)

- this checkout: ${results.checkoutCommit}; beside it: ${results.refCommit}, built in a temporary worktree (node_modules ${results.nodeModules === 'linked' ? "this checkout's, linked: same lock file and patches" : 'its own, npm ci'})
- machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB.toFixed(0)} GiB, ${machine.system}, Node ${machine.nodeVersion}
- other work on the machine (1-min load average): ${results.loadAverageAtStart.toFixed(1)} at start, ${results.loadAverageAtEnd.toFixed(1)} at end${busy}
- each build started fresh in its turn, alike (compiled, \`npm start\`'s node flags), this checkout first in odd rounds and ${other} first in even ones; load: ${plan.load.connections} connections, ${plan.load.durationSeconds} s after a ${plan.load.warmupSeconds} s warm-up; run took ${results.elapsedSeconds.toFixed(0)} s
- ratio = this checkout / ${other}: above 1 is more for this checkout (req/s: faster; CPU, ms, MiB: costlier)

${sections.join('\n')}`;
}

function conversationSection(dataset: Dataset, figures: BuildsSideBySideFigures, other: string): string {
  const rows = figures.rounds.flatMap((round, i) => [turnRow(`${i + 1}`, 'this checkout', round.checkout), turnRow(`${i + 1}`, other, round.other)]);
  const sameBytes = figures.rounds.every((round) => round.checkout.firstPageBody.equals(round.other.firstPageBody));
  const total = (build: 'checkout' | 'other', pick: (turn: BuildTurnFigures) => number | undefined) =>
    figures.rounds.reduce((sum, round) => sum + (pick(round[build]) ?? Number.NaN), 0);
  const ratioOf = (pick: (turn: BuildTurnFigures) => number | undefined) => ratio(total('checkout', pick), total('other', pick));
  return `### ${dataset.spec.label}: this checkout beside ${other}

| round | build | first page req/s | CPU µs/req | another cursor req/s | CPU µs/req | cold open ms | resident at first page MiB |
|---|---|--:|--:|--:|--:|--:|--:|
${rows.join('\n')}
| all rounds | **this checkout / ${other}** | **${ratioOf((t) => t.firstPage.requestsPerSecond)}** | **${ratioOf((t) => t.firstPage.cpuMicrosPerRequest)}** | **${ratioOf((t) => t.rotatingPage?.requestsPerSecond)}** | **${ratioOf((t) => t.rotatingPage?.cpuMicrosPerRequest)}** | **${ratioOf((t) => t.coldOpen.firstAnswerMs)}** | **${ratioOf((t) => t.coldOpen.firstPageMemory.residentBytes)}** |

First page answered with the same bytes by both builds in every round: ${sameBytes ? 'yes' : '**no**'}. Failed requests: ${figures.rounds.reduce((sum, round) => sum + failures(round.checkout) + failures(round.other), 0)}.${
    figures.warmUp
      ? ` Before the rounds, each build had a turn that was not measured, until its CPU rested (an index on disk complete): this checkout ${figures.warmUp.checkout.toFixed(0)} s, ${other} ${figures.warmUp.other.toFixed(0)} s from the spawn; so every round's cold open of a build that keeps an index is a restart on it.`
      : ''
  }
`;
}

function turnRow(round: string, build: string, turn: BuildTurnFigures): string {
  const cells = [
    round,
    build,
    turn.firstPage.requestsPerSecond.toFixed(0),
    turn.firstPage.cpuMicrosPerRequest.toFixed(0),
    turn.rotatingPage ? turn.rotatingPage.requestsPerSecond.toFixed(0) : 'n/a',
    turn.rotatingPage ? turn.rotatingPage.cpuMicrosPerRequest.toFixed(0) : 'n/a',
    turn.coldOpen.firstAnswerMs.toFixed(0),
    (turn.coldOpen.firstPageMemory.residentBytes / 2 ** 20).toFixed(0),
  ];
  return `| ${cells.join(' | ')} |`;
}

function failures(turn: BuildTurnFigures): number {
  return turn.firstPage.failures + (turn.rotatingPage?.failures ?? 0);
}

function ratio(checkout: number, other: number): string {
  return other > 0 && Number.isFinite(checkout) && Number.isFinite(other) ? (checkout / other).toFixed(2) : 'n/a';
}
