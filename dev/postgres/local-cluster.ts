/**
 * A throwaway PostgreSQL cluster on loopback, for the tests and the benchmark: `initdb`
 * into a temporary directory, started on a free port, and removed again by `stop`. A
 * streaming hot standby of it is made with `pg_basebackup -R`.
 *
 * `initdb` and `postgres` refuse to run as root, and CI runs as root: as root every
 * PostgreSQL program runs as the `postgres` user the Debian package creates (runuser),
 * and the temporary directory is handed to that user.
 *
 * In a test run (jest's global setup names its cache folder in AGENT_SERVER_TEST_CACHE) the
 * test files' clusters are copies of one `initdb` made there on first use: `initdb` runs the
 * server in bootstrap mode several times over, where a copy of its result is a file copy, and
 * every cluster starts from the same files either way. The benchmark's durable clusters run
 * `initdb` themselves.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findFreePort } from '../process/free-port';

const DEFAULT_BIN_DIR = '/usr/lib/postgresql/15/bin';
const SERVICE_USER = 'postgres';

export interface LocalClusterOptions {
  /** Where initdb, pg_ctl and pg_basebackup are (PG_BIN_DIR, else Debian's PostgreSQL 15). */
  binDir?: string;
  /** Durable commits (fsync on): for the benchmark. Tests run faster without. */
  durable?: boolean;
}

export interface LocalCluster {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  readonly url: string;
  readonly port: number;
  readonly dataDirectory: string;
  /** Stops the server at once (as a crash would), keeping its files. */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  restart(): Promise<void>;
  /** A streaming hot standby of this cluster on a port of its own. */
  startStandby(): Promise<LocalCluster>;
  /** Stops the server and removes every file. */
  stop(): Promise<void>;
}

/** Starts a fresh cluster; rejects with the tool's own output when a step fails. */
export async function startLocalCluster(options: LocalClusterOptions = {}): Promise<LocalCluster> {
  const binDir = options.binDir ?? process.env['PG_BIN_DIR'] ?? DEFAULT_BIN_DIR;
  if (!existsSync(path.join(binDir, 'initdb'))) {
    throw new Error(
      `PostgreSQL is not installed: ${path.join(binDir, 'initdb')} is missing. Install it with \`apt-get install -y postgresql\`, or set PG_BIN_DIR.`,
    );
  }
  const durable = options.durable ?? false;
  const home = ownedTemporaryDirectory();
  const dataDirectory = path.join(home, 'data');
  const testRunCache = process.env['AGENT_SERVER_TEST_CACHE'];
  if (!durable && testRunCache) await runAsServiceUser('cp', ['-a', await initializedTemplate(binDir, testRunCache), dataDirectory]);
  else await initdb(binDir, dataDirectory);
  return launch(binDir, home, dataDirectory, durable);
}

function initdb(binDir: string, dataDirectory: string): Promise<void> {
  return runTool(binDir, 'initdb', ['-D', dataDirectory, '-A', 'trust', '-U', SERVICE_USER, '-E', 'UTF8', '--locale=C', '--no-sync']);
}

/**
 * The data directory `initdb` made once in `cacheFolder` for this PostgreSQL, never started. Files
 * that start clusters at the same time may each make one; the first to rename theirs into place
 * wins and the others remove their own, so a template is only ever seen whole.
 */
async function initializedTemplate(binDir: string, cacheFolder: string): Promise<string> {
  const template = path.join(cacheFolder, `postgres-template-${path.resolve(binDir).replaceAll(path.sep, '_')}`);
  const data = path.join(template, 'data');
  if (existsSync(data)) return data;
  const building = ownedTemporaryDirectory(cacheFolder);
  await initdb(binDir, path.join(building, 'data'));
  try {
    renameSync(building, template);
  } catch {
    rmSync(building, { recursive: true, force: true });
  }
  return data;
}

async function launch(binDir: string, home: string, dataDirectory: string, durable: boolean): Promise<LocalCluster> {
  const port = await findFreePort('127.0.0.1');
  const settings = [
    `-p ${port}`,
    `-k ${home}`,
    '-c listen_addresses=127.0.0.1',
    '-c wal_level=replica',
    '-c max_wal_senders=4',
    '-c hot_standby=on',
    ...(durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']),
  ].join(' ');
  const logFile = path.join(home, `${path.basename(dataDirectory)}.log`);
  const start = () =>
    runTool(binDir, 'pg_ctl', ['-D', dataDirectory, '-o', settings, '-l', logFile, '-w', '-t', '60', 'start']).catch((error: Error) => {
      throw new Error(`${error.message}\n${tail(logFile)}`);
    });
  await start();
  let stopped = false;
  const cluster: LocalCluster = {
    url: `postgres://${SERVICE_USER}@127.0.0.1:${port}/postgres`,
    port,
    dataDirectory,
    kill: () => runTool(binDir, 'pg_ctl', ['-D', dataDirectory, '-m', 'immediate', '-w', 'stop']),
    restart: start,
    async startStandby() {
      const standbyDirectory = path.join(home, `standby-${Date.now()}`);
      await runTool(binDir, 'pg_basebackup', [
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-U',
        SERVICE_USER,
        '-D',
        standbyDirectory,
        '-R',
        '-X',
        'stream',
        '-c',
        'fast',
        '--no-sync',
      ]);
      return launch(binDir, home, standbyDirectory, durable);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await runTool(binDir, 'pg_ctl', ['-D', dataDirectory, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      if (path.basename(dataDirectory) === 'data') rmSync(home, { recursive: true, force: true });
      else rmSync(dataDirectory, { recursive: true, force: true });
    },
  };
  return cluster;
}

function runningAsRoot(): boolean {
  return process.getuid?.() === 0;
}

function ownedTemporaryDirectory(parent = os.tmpdir()): string {
  const home = mkdtempSync(path.join(parent, 'agent-server-pg-'));
  if (runningAsRoot()) {
    const [uid, gid] = serviceUserIds();
    chownSync(home, uid, gid);
  }
  return home;
}

function serviceUserIds(): [number, number] {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${SERVICE_USER}:`));
  if (!line)
    throw new Error(`Running as root, PostgreSQL must run as the \`${SERVICE_USER}\` user, which does not exist. Install the postgresql package.`);
  const fields = line.split(':');
  return [Number(fields[2]), Number(fields[3])];
}

function runTool(binDir: string, tool: string, args: string[]): Promise<void> {
  return runAsServiceUser(path.join(binDir, tool), args);
}

function runAsServiceUser(program: string, args: string[]): Promise<void> {
  const [command, commandArgs] = runningAsRoot() ? ['runuser', ['-u', SERVICE_USER, '--', program, ...args]] : [program, args];
  return new Promise((resolve, reject) => {
    execFile(command, commandArgs, { cwd: '/' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${path.basename(program)} failed: ${stderr || stdout || error.message}`));
      else resolve();
    });
  });
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '';
  }
}
