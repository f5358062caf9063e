/**
 * The results of a run as a Markdown entry for bench/RESULTS.md, an append-only log: each
 * run adds one dated section and never rewrites earlier ones.
 */
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import type { LoadFigures } from './load';
import type { ServerLoadFigures } from './side-by-side';
import type { BenchResults, ConversationResults } from './run';
import { todaysShapeSection } from './todays-shape';
import type { ScalingResults } from './scaling';
import { type TargetCheck, mebibytes, scenario } from './targets';

const RESULTS_HEADER = `# Benchmark results

Append-only log of \`npm run bench\` runs; see README.md for what each figure means.
`;

/** Appends `entry` to the log, creating it with its header first if needed. */
export function appendToResultsLog(file: string, entry: string): void {
  if (!existsSync(file)) writeFileSync(file, RESULTS_HEADER);
  appendFileSync(file, `\n${entry}`);
}

/** One run as a Markdown section. */
export function renderReport(results: BenchResults, targets: readonly TargetCheck[]): string {
  const main = results.conversations[results.conversations.length - 1]!;
  return [
    header(results),
    searchTable(results),
    frameworkShareTable(results.conversations),
    openTable(results.conversations),
    validationTable(results, main),
    installedPackageSection(results, main),
    appendSection(results, main),
    smallWaitSection(results, main),
    todaysShapeSection(results.todaysShape),
    results.scaling ? scalingSection(results.scaling) : '',
    targetTable(targets),
  ].join('\n');
}

function header(results: BenchResults): string {
  const { machine, plan } = results;
  const when = results.startedAt.toISOString().replace('T', ' ').slice(0, 16);
  return `## ${when} UTC, ${plan.mode} run

- machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB.toFixed(0)} GiB, ${machine.system}, Node ${machine.nodeVersion}
- other work on the machine (1-min load average): ${results.loadAverageAtStart.toFixed(1)} at start, ${results.loadAverageAtEnd.toFixed(1)} at end${busyWarning(results)}
- commit: ${results.commit}
- load: autocannon on loopback in the bench process, ${plan.load.connections} connections, ${plan.load.durationSeconds} s per measurement after a ${plan.load.warmupSeconds} s warm-up; servers in their own processes; run took ${results.elapsedSeconds.toFixed(0)} s
`;
}

function busyWarning(results: BenchResults): string {
  const busiest = Math.max(results.loadAverageAtStart, results.loadAverageAtEnd);
  return busiest > results.machine.cores
    ? ` (**busy**: more runnable work than cores, so req/s and latencies are noisy; CPU per request is the steadier figure)`
    : '';
}

function searchTable(results: BenchResults): string {
  const rows = results.conversations.flatMap((conversation) =>
    conversation.scenarios.map((result) =>
      row([
        conversation.dataset.spec.label,
        result.scenario.description,
        String(result.items),
        kilobytes(result.bodyBytes),
        ...comparedFigures(result.ours, result.baseline),
        result.ours.cpuMicrosPerRequest.toFixed(0),
        result.baseline.cpuMicrosPerRequest.toFixed(0),
        ratio(result.ours.cpuMicrosPerRequest, result.baseline.cpuMicrosPerRequest),
        String(result.ours.failures + result.baseline.failures),
      ]),
    ),
  );
  return `### Search under load: ours vs baseline (ratio = ours / baseline)

CPU = the server process's CPU time (all threads) per successful request.

| conversation | scenario | items | body KiB | req/s | baseline req/s | ratio | p50 ms | baseline p50 | ratio | p99 ms | baseline p99 | ratio | CPU µs/req | baseline CPU | ratio | failures |
|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|
${rows.join('\n')}
`;
}

function comparedFigures(ours: LoadFigures, baseline: LoadFigures): string[] {
  return [
    ours.requestsPerSecond.toFixed(0),
    baseline.requestsPerSecond.toFixed(0),
    ratio(ours.requestsPerSecond, baseline.requestsPerSecond),
    ours.p50Ms.toFixed(2),
    baseline.p50Ms.toFixed(2),
    ratio(ours.p50Ms, baseline.p50Ms),
    ours.p99Ms.toFixed(2),
    baseline.p99Ms.toFixed(2),
    ratio(ours.p99Ms, baseline.p99Ms),
  ];
}

function openTable(conversations: readonly ConversationResults[]): string {
  const rows = conversations.map(({ dataset, coldOpen, readFloor, baselineReadyMs, baselineResidentBytes }) =>
    row([
      dataset.spec.label,
      mebibytes(coldOpen.diskBytes),
      coldOpen.readyMs.toFixed(0),
      baselineReadyMs.toFixed(0),
      coldOpen.firstAnswerMs.toFixed(0),
      (coldOpen.firstAnswerMs - coldOpen.readyMs).toFixed(0),
      `${readFloor.readMs.toFixed(0)} / ${readFloor.readAndParseMs.toFixed(0)}`,
      mebibytes(coldOpen.idleMemory.residentBytes),
      mebibytes(baselineResidentBytes),
      mebibytes(coldOpen.firstPageMemory.residentBytes),
      ratio(coldOpen.firstPageMemory.residentBytes, coldOpen.diskBytes),
      mebibytes(coldOpen.firstPageMemory.peakResidentBytes),
      ratio(coldOpen.firstPageMemory.peakResidentBytes, coldOpen.diskBytes),
      mebibytes(coldOpen.loadedMemory.residentBytes),
      ratio(coldOpen.loadedMemory.residentBytes, coldOpen.diskBytes),
    ]),
  );
  return `### Opening a conversation (fresh server)

Cold open = spawn to the first 200 of a search on the conversation; process ready = spawn to
the first 200 of \`/alive\` (the compiled server), beside the baseline process's spawn to listening (node and tsx);
RSS idle = our server before it has read a conversation, beside the baseline process's RSS.
RSS at first page = the moment the first page has arrived; peak = the most the process held
up to then (VmHWM), so the peak while opening; settled = 500 ms later.
The loading floor is the bench process listing and reading every event file, one after
another from the page cache (then also parsing each as JSON).

| conversation | on disk MiB | process ready ms | baseline ready ms | cold open ms | of which loading ms | loading floor: read / read+parse ms | RSS idle MiB | baseline RSS MiB | RSS at first page MiB | / disk | peak MiB | / disk | RSS settled MiB | / disk |
|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|
${rows.join('\n')}
`;
}

/**
 * The first page on the baseline, the framework floor and our server: how much of the gap
 * to the baseline is Express and the validator, and how much is the store and the search.
 */
function frameworkShareTable(conversations: readonly ConversationResults[]): string {
  const rows = conversations.flatMap((conversation) => {
    const firstPage = scenario(conversation, 'first-page');
    const label = conversation.dataset.spec.label;
    return [
      firstPageLine(`${label}: baseline (node:http)`, firstPage.baseline, firstPage.baseline),
      firstPageLine(`${label}: Express alone (one route, no validation)`, conversation.firstPageExpress, firstPage.baseline),
      firstPageLine(`${label}: framework floor (Express + request validation)`, conversation.firstPageFloor, firstPage.baseline),
      firstPageLine(`${label}: ours`, firstPage.ours, firstPage.baseline),
    ];
  });
  return `### First page: the framework's share

Express alone is a bare Express application with the search route and nothing else,
answering the same bytes. The framework floor is our own application (createApp: Express
with our settings, request validation by express-openapi-validator from the contract, the
error path) answering the same bytes with the store and the search taken out: the most a
server built on these two can do on this machine. The first row to the second is what
Express costs, the second to the third what the validation costs, and ours minus the
floor is what the store and the search cost.

${FIRST_PAGE_HEADER}
${rows.join('\n')}
`;
}

function validationTable(results: BenchResults, main: ConversationResults): string {
  const firstPage = scenario(main, 'first-page');
  return `### Response validation (first page, ${main.dataset.spec.label})

${FIRST_PAGE_HEADER}
${firstPageLine('off (default)', firstPage.ours, firstPage.baseline)}
${firstPageLine('--validate-responses', results.validatedFirstPage, firstPage.baseline)}
${firstPageLine('baseline', firstPage.baseline, firstPage.baseline)}
`;
}

const FIRST_PAGE_HEADER = `| server | req/s | ratio to baseline | p50 ms | p99 ms | CPU µs/req | ratio to baseline | failures |
|---|--:|--:|--:|--:|--:|--:|--:|`;

/** A server's figures under load, with req/s and CPU as ratios to `reference`'s. */
function firstPageLine(server: string, figures: ServerLoadFigures, reference: ServerLoadFigures): string {
  return row([
    server,
    figures.requestsPerSecond.toFixed(0),
    ratio(figures.requestsPerSecond, reference.requestsPerSecond),
    figures.p50Ms.toFixed(2),
    figures.p99Ms.toFixed(2),
    figures.cpuMicrosPerRequest.toFixed(0),
    ratio(figures.cpuMicrosPerRequest, reference.cpuMicrosPerRequest),
    String(figures.failures),
  ]);
}

function installedPackageSection(results: BenchResults, main: ConversationResults): string {
  const figures = results.installedPackage;
  const title = `### The installed package beside this checkout (first page, ${main.dataset.spec.label})`;
  if ('notMeasured' in figures) return `${title}\n\nNot measured: ${figures.notMeasured}\n`;
  const rows = figures.rounds.flatMap((round, i) => [
    firstPageLine(`round ${i + 1}: checkout (dist/)`, round.checkout, round.checkout),
    firstPageLine(`round ${i + 1}: installed tarball`, round.installed, round.checkout),
  ]);
  return `${title}

The tarball \`npm pack\` makes of this build (${kilobytes(figures.tarballBytes)} KiB), installed with \`npm install\` into a
project of its own; each server started fresh in its turn, alike, opening the conversation before its first page is
loaded (the checkout first in odd rounds, the installed package first in even ones). Ratio = installed / checkout in
the same round.

| server | req/s | ratio | p50 ms | p99 ms | CPU µs/req | ratio | failures |
|---|--:|--:|--:|--:|--:|--:|--:|
${rows.join('\n')}
`;
}

function appendSection(results: BenchResults, main: ConversationResults): string {
  const { append } = results;
  const visible =
    append.visibleAfterLastWriteMs === undefined
      ? `NOT all visible: ${append.visible} of ${append.appended} after ${results.plan.appendTimeoutMs} ms`
      : `${append.visibleAfterLastWriteMs.toFixed(0)} ms after the last write`;
  return `### ${append.appended} events appended while the first page is under load (${main.dataset.spec.label})

- writing the files (one after another): ${append.writeMs.toFixed(0)} ms
- all ${append.appended} visible to a search: ${visible}
- first page meanwhile: ${append.load.requestsPerSecond.toFixed(0)} req/s, p50 ${append.load.p50Ms.toFixed(2)} ms, p99 ${append.load.p99Ms.toFixed(2)} ms, max ${append.load.maxMs.toFixed(1)} ms, ${append.load.failures} failures
`;
}

function smallWaitSection(results: BenchResults, main: ConversationResults): string {
  const wait = results.smallWait;
  return `### A small conversation while ${main.dataset.spec.label} loads (fresh server, small one already loaded)

- ${main.dataset.spec.label} first search answered after ${wait.bigOpenMs.toFixed(0)} ms
- meanwhile ${wait.smallRequests} requests for the small conversation (${results.plan.smallWaitClients} clients): p50 ${wait.smallP50Ms.toFixed(1)} ms, p99 ${wait.smallP99Ms.toFixed(1)} ms, max ${wait.smallMaxMs.toFixed(1)} ms
`;
}

/** How cost grows, and the memory budget over many conversations: a section of its own, also printed by `--scaling-only`. */
export function scalingSection(scaling: ScalingResults): string {
  const rows = scaling.rows.map((r) =>
    row([
      r.label,
      String(r.conversations * r.eventsEach),
      mebibytes(r.diskBytes),
      r.openMs.toFixed(0),
      mebibytes(r.idleResidentBytes),
      mebibytes(r.loadedResidentBytes),
      mebibytes(r.loadedResidentBytes - r.idleResidentBytes),
      ((r.loadedResidentBytes - r.idleResidentBytes) / r.diskBytes).toFixed(2),
      r.firstPageP50Ms.toFixed(2),
    ]),
  );
  const b = scaling.budget;
  const random = b.random
    ? `- then ${b.random.requests} random pages (${b.random.clients} clients, a random conversation, 20 events from a random one): p50 ${b.random.p50Ms.toFixed(1)} ms, p99 ${b.random.p99Ms.toFixed(1)} ms, max ${b.random.maxMs.toFixed(1)} ms; server CPU ${b.random.cpuMsEach.toFixed(2)} ms a request`
    : '';
  return `### How cost grows (fresh server each)

Open = for one conversation, spawn to its first answer minus the process's own start; for many,
the first request to each, one after another. RSS after = 500 ms after. First page = limit 100,
one request at a time, p50 over 200.

| data | events | on disk MiB | open ms | RSS idle MiB | RSS after MiB | of which data MiB | data RSS / disk | first page p50 ms |
|---|--:|--:|--:|--:|--:|--:|--:|--:|
${rows.join('\n')}

### Memory budget: ${b.data.count} conversations of ${b.data.eventsEach} events (${mebibytes(b.data.diskBytes)} MiB on disk), --memory-budget-mb ${b.budgetMiB}

- idle ${mebibytes(b.idleMemory.residentBytes)} MiB; peak ${mebibytes(b.peakResidentBytes)} MiB (idle + ${mebibytes(b.peakResidentBytes - b.idleMemory.residentBytes)} MiB)
- first request to each, one after another: ${(b.firstRequests.totalMs / 1000).toFixed(2)} s in all, p50 ${b.firstRequests.p50Ms.toFixed(1)} ms, max ${b.firstRequests.maxMs.toFixed(1)} ms; server CPU ${b.firstRequests.cpuMsEach.toFixed(2)} ms each (${((b.firstRequests.cpuMsEach * b.data.count) / 1000).toFixed(2)} s in all)
${random}
- answers not matching the files: ${b.wrongAnswers}
- /health at the end: ${b.health.conversationsLoaded} conversations held, ${mebibytes(b.health.bytesHeld)} MiB, ${b.health.conversationsDropped} dropped since start
`;
}

function targetTable(targets: readonly TargetCheck[]): string {
  return `### Targets

| target | goal | measured | result |
|---|---|---|---|
${targets.map((target) => row([target.name, target.goal, target.measured, verdict(target.pass)])).join('\n')}
`;
}

function verdict(pass: boolean | undefined): string {
  if (pass === undefined) return 'not judged (set for 100k events; run the full bench)';
  return pass ? 'PASS' : '**MISS**';
}

function row(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function ratio(ours: number, baseline: number): string {
  return baseline > 0 && Number.isFinite(ours) ? (ours / baseline).toFixed(2) : 'n/a';
}

function kilobytes(bytes: number): string {
  return (bytes / 1024).toFixed(1);
}
