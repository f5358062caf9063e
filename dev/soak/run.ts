/**
 * One soak run: the real server in a child process over a fresh temporary data directory,
 * readers and a writer for the given time, then the final walks that prove every append
 * was served once, and the server stopped with SIGTERM. Loopback only; the directory is
 * removed afterwards whatever happens.
 */
import { startAppender } from './appender';
import { createSoakDataset } from './dataset';
import { summarizeLatency } from './latency';
import { DEFAULT_SOAK_OPTIONS, type SoakOptions } from './options';
import { runReaders } from './readers';
import { type SoakReport, judgeSoak } from './report';
import { type ServerProcess, startServerProcess } from './server-process';
import { verifyAppended } from './verify';

/** How long the final walks may take to see the last appends (the server reads new files within milliseconds). */
const VERIFY_GRACE_MS = 10_000;
const SAMPLE_EVERY_MS = 1000;

/** Runs the soak with `options` over the defaults; `progress` receives a line every 10 s and at each stage. */
export async function runSoak(options: Partial<SoakOptions> = {}, progress: (line: string) => void = () => undefined): Promise<SoakReport> {
  const settings = { ...DEFAULT_SOAK_OPTIONS, ...options };
  const dataset = createSoakDataset(settings.conversations, settings.initialEvents);
  let server: ServerProcess | undefined;
  try {
    server = await startServerProcess({ conversationsPath: dataset.root });
    const running = server;
    const rssKb = { start: running.rssKb(), peak: running.rssKb(), end: undefined as number | undefined };
    progress(`server ${running.url} (pid ${running.pid}) serving ${dataset.root}`);

    const started = performance.now();
    const deadline = started + settings.seconds * 1000;
    const appender = startAppender(dataset.conversations, settings.appendsPerSecond);
    const sampler = setInterval(() => {
      rssKb.peak = Math.max(rssKb.peak ?? 0, running.rssKb() ?? 0);
    }, SAMPLE_EVERY_MS);
    let readers;
    try {
      readers = await runReaders(running.url, dataset.conversations, settings.clients, deadline, progress);
    } finally {
      appender.stop();
      clearInterval(sampler);
    }
    const elapsedSeconds = (performance.now() - started) / 1000;

    progress('final walks: every appended event must be served exactly once');
    const appends = await verifyAppended(running.url, dataset.conversations, appender.appended, VERIFY_GRACE_MS);
    rssKb.end = running.rssKb();
    rssKb.peak = Math.max(rssKb.peak ?? 0, rssKb.end ?? 0);
    const serverExit = await running.stop();
    server = undefined;
    return judgeSoak({
      options: settings,
      elapsedSeconds,
      requests: readers.requests,
      walks: readers.walks,
      errors: readers.errors,
      errorSamples: readers.errorSamples,
      latency: summarizeLatency(readers.latenciesMs),
      appends,
      rssKb,
      serverExit,
    });
  } finally {
    await server?.stop();
    dataset.remove();
  }
}
