/**
 * Servers on PostgreSQL as they are deployed: `npm start -- --database-url` beside a
 * directory-store server on the same data (the contract kit passes, catalog, socket and
 * trajectory download included, and its --compare finds no difference), two servers on one database whose
 * sockets each deliver what a following ingester appends, servers on a streaming hot standby, a database
 * that is absent at start or lost while serving.
 */
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import { generateConversation, toConversationIdHex } from '../../src/fixture';
import { eventFileName, serializeEvent, writeConversation } from '../../src/fixture/layout';
import { createMemoryLogger } from '../../src/log';
import { createApp } from '../../src/server/app';
import { listen, type RunningServer } from '../../src/server/listen';
import { spawnScript, type ScriptProcess } from '../../dev/process/server-process';
import { createPool } from '../../src/store/postgres/connection';
import { ingestConversations } from '../../src/store/ingest/ingester';
import { migrate } from '../../src/store/postgres/migrations';
import { postgresDatabase } from '../../src/store/postgres/postgres-database';
import { latestSchemaVersion } from '../../src/store/postgres/migrations';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store';
import { conversationId } from '../support/events';
import { eventually } from '../support/eventually';
import { listeningUrl } from '../support/listening-url';
import { searchPath } from '../support/search-requests';
import { openTestSocket, socketUrl } from '../support/socket-client';
import { CLUSTER_TIMEOUT_MS, conversationsDirectory, ingestOnce, startLocalCluster, type LocalCluster } from './support/database';
import { loadOpenApiDocument } from '../../src/contract';
import { allChecks } from '../../src/kit/run/checks';
import { readSearchContract } from '../../src/kit/search-contract';

const LONG = conversationId(1);
const SHORT = conversationId(2);
const EVENTS = generateConversation({ events: 300, seed: 'servers-long' });
const LATER = generateConversation({ events: 320, seed: 'servers-long' }).slice(300);

/** Requests whose answers two servers on the same data must agree on, byte for byte. */
const REQUESTS = [
  searchPath(LONG, { limit: 7 }),
  searchPath(LONG, { limit: 50, sort_order: 'TIMESTAMP_DESC', kind: 'ActionEvent' }),
  searchPath(LONG, { body: 'the', limit: 5 }),
  searchPath(LONG, { page_id: EVENTS[100]!.id!, limit: 5 }),
  searchPath(LONG, { page_id: 'unknown', limit: 3 }),
  searchPath(LONG, { source: 'user', timestamp__gte: '2020-01-01T00:00:00' }),
  searchPath(SHORT, {}),
  searchPath(conversationId(99), {}),
  `/api/conversations/${LONG}/events/search?limit=0`,
  `/api/conversations/${LONG}/events/count?kind=MessageEvent`,
  `/api/conversations/${LONG}/events/${EVENTS[5]!.id}`,
  `/api/conversations/${LONG}/events/no-such-event`,
];

async function answers(baseUrl: string): Promise<{ status: number; text: string }[]> {
  return Promise.all(
    REQUESTS.map(async (request) => {
      const response = await fetch(baseUrl + request);
      return { status: response.status, text: await response.text() };
    }),
  );
}

async function serveInProcess(databaseUrl: string): Promise<{ server: RunningServer; store: PostgresStore; logs: string[] }> {
  const logger = createMemoryLogger();
  const store = await openPostgresStore(databaseUrl, { logger });
  const server = await listen(createApp({ store, catalog: store.catalog, logger }), '127.0.0.1', 0);
  return { server, store, logs: logger.lines };
}

async function spawnServer(args: string[]): Promise<{ process: ScriptProcess; url: string; output: () => string }> {
  const child = spawnScript('src/cli/start.ts', ['--port', '0', ...args], { label: 'server' });
  const { url, output } = await listeningUrl(child);
  return { process: child, url, output };
}

describe('servers on PostgreSQL', () => {
  let primary: LocalCluster;
  let data: { root: string; remove(): void };

  beforeAll(async () => {
    primary = await startLocalCluster();
    data = conversationsDirectory([
      { id: LONG, events: EVENTS },
      { id: SHORT, events: generateConversation({ events: 25, seed: 'servers-short' }) },
    ]);
    await ingestOnce(primary.url, data.root);
  }, CLUSTER_TIMEOUT_MS);

  afterAll(async () => {
    await primary?.stop();
    data?.remove();
  });

  it('npm start --database-url passes the contract kit, socket, catalog and trajectory included, and answers exactly as a directory-store server', async () => {
    const directory = await spawnServer(['--conversations-path', data.root]);
    const postgres = await spawnServer(['--database-url', primary.url]);
    try {
      expect(postgres.output()).toContain(`serving ${primary.url}`);
      expect(await answers(postgres.url)).toEqual(await answers(directory.url));
      const kit = spawnScript(
        'src/cli/contract.ts',
        ['--base-url', directory.url, '--conversation-id', LONG, '--compare', postgres.url, '--runs', '30', '--seed', '7', ...everyCheck()],
        { label: 'contract' },
      );
      let report = '';
      kit.child.stdout?.on('data', (chunk: Buffer) => (report += chunk.toString()));
      const exit = await kit.exited;
      const failures = report.split('\n').filter((line) => /\bFAIL\b|differ|status \d+ here/.test(line));
      expect({
        code: exit.code,
        compare: /compare \(same requests against the second server\): \d+ passed, 0 failed/.test(report),
        failures,
      }).toEqual({
        code: 0,
        compare: true,
        failures: [],
      });
    } finally {
      await directory.process.stop(5000);
      await postgres.process.stop(5000);
    }
  });

  it('a database that is not there, or not migrated, stops the start with a message and exit code 2', async () => {
    const absent = spawnScript('src/cli/start.ts', ['--port', '0', '--database-url', 'postgres://agent:hunter2@127.0.0.1:1/events']);
    let absentOutput = '';
    absent.child.stderr?.on('data', (chunk: Buffer) => (absentOutput += chunk.toString()));
    expect((await absent.exited).code).toBe(2);
    expect(absentOutput).toContain('Cannot use the database at postgres://agent:***@127.0.0.1:1/events');
    expect(absentOutput).toContain('Check that PostgreSQL is running');
    expect(absentOutput).not.toContain('hunter2');
    expect(absentOutput).not.toMatch(/\n\s+at /);

    const admin = new Client(primary.url);
    await admin.connect();
    await admin.query('CREATE DATABASE unmigrated');
    await admin.end();
    const unmigrated = spawnScript('src/cli/start.ts', ['--port', '0', '--database-url', primary.url.replace(/\/postgres$/, '/unmigrated')]);
    let unmigratedOutput = '';
    unmigrated.child.stderr?.on('data', (chunk: Buffer) => (unmigratedOutput += chunk.toString()));
    expect((await unmigrated.exited).code).toBe(2);
    expect(unmigratedOutput).toContain(
      `has schema version 0; this server needs ${latestSchemaVersion()}. Run \`npm run migrate -- --database-url URL\``,
    );
  });

  it('two servers on one database answer identically; with one gone the other keeps answering', async () => {
    const first = await serveInProcess(primary.url);
    const second = await serveInProcess(primary.url);
    try {
      const expected = await answers(first.server.url);
      expect(await answers(second.server.url)).toEqual(expected);
      await first.server.stop();
      await first.store.close();
      expect(await answers(second.server.url)).toEqual(expected);
    } finally {
      await second.server.stop();
      await second.store.close();
    }
  });

  it('servers on a streaming hot standby answer the same, and see followed appends', async () => {
    const standby = await primary.startStandby();
    const onPrimary = await serveInProcess(primary.url);
    const onStandby = await eventually(() => serveInProcess(standby.url), { withinMs: 20_000, everyMs: 200 });
    const logger = createMemoryLogger();
    const pool = createPool(primary.url, logger);
    const stopFollowing = new AbortController();
    const following = migrate(pool).then(() =>
      ingestConversations({ root: data.root, database: postgresDatabase(pool), logger, follow: true, signal: stopFollowing.signal }),
    );
    try {
      expect(await answers(onStandby.server.url)).toEqual(await answers(onPrimary.server.url));
      const events = path.join(data.root, toConversationIdHex(LONG), 'events');
      const appended = LATER[0]!;
      writeFileSync(path.join(events, `event-00300-${appended.id}.json`), serializeEvent(appended));
      const lastPage = searchPath(LONG, { limit: 1, sort_order: 'TIMESTAMP_DESC' });
      // How soon it comes is the bench's to measure (`--live-only --store postgres`); the test waits for it.
      await eventually(
        async () => {
          const page = (await (await fetch(onStandby.server.url + lastPage)).json()) as { items: { id: string }[] };
          expect(page.items[0]!.id).toBe(appended.id);
        },
        { withinMs: 1000, everyMs: 20 },
      );
      expect(await answers(onStandby.server.url)).toEqual(await answers(onPrimary.server.url));
    } finally {
      stopFollowing.abort();
      await following;
      await pool.end();
      for (const served of [onPrimary, onStandby]) {
        await served.server.stop();
        await served.store.close();
      }
      await standby.stop();
    }
  });

  it("sockets on two servers sharing the database each receive the following ingester's appends, in append order", async () => {
    const id = conversationId(3);
    writeConversation(data.root, id, generateConversation({ events: 5, seed: 'servers-live' }));
    const appended = generateConversation({ events: 8, seed: 'servers-live' }).slice(5);
    const logger = createMemoryLogger();
    const pool = createPool(primary.url, logger);
    const stopFollowing = new AbortController();
    const following = migrate(pool).then(() =>
      ingestConversations({ root: data.root, database: postgresDatabase(pool), logger, follow: true, signal: stopFollowing.signal }),
    );
    const servers = [await serveInProcess(primary.url), await serveInProcess(primary.url)];
    try {
      await eventually(async () => expect((await fetch(`${servers[0]!.server.url}/api/conversations/${id}/events/count`)).status).toBe(200), {
        withinMs: 20_000,
        everyMs: 100,
      });
      const sockets = servers.map(({ server }) => openTestSocket(socketUrl(server.url, id)));
      // The first frame (the saved state) says the socket is subscribed: what is appended from now on reaches it.
      await Promise.all(sockets.map((socket) => socket.framesArrived(1)));
      const events = path.join(data.root, toConversationIdHex(id), 'events');
      for (const [n, event] of appended.entries()) writeFileSync(path.join(events, eventFileName(5 + n, event.id as string)), serializeEvent(event));
      const arrivals = await Promise.all(
        sockets.map(async (socket) =>
          (await socket.framesArrived(1 + appended.length)).slice(1).map((frame) => (JSON.parse(frame) as { id: string }).id),
        ),
      );
      for (const ids of arrivals) expect(ids).toEqual(appended.map((event) => event.id));
      for (const socket of sockets) socket.ws.close();
    } finally {
      stopFollowing.abort();
      await following;
      await pool.end();
      for (const served of servers) {
        await served.server.stop();
        await served.store.close();
      }
    }
  });

  it('a database that stops answering: 503 with a correlation id within the client timeout, never a hang', async () => {
    const relay = await relayTo(primary.url);
    const served = await serveInProcess(relay.url);
    try {
      expect((await fetch(served.server.url + REQUESTS[0]!)).status).toBe(200);
      relay.goSilent();
      const started = performance.now();
      const response = await fetch(served.server.url + REQUESTS[1]!);
      const body = (await response.json()) as { detail: string; correlation_id: string };
      // The statement timeout (5 s) and the client's margin past it, with room for a slow machine.
      expect(performance.now() - started).toBeLessThan(15_000);
      expect({ status: response.status, body }).toEqual({
        status: 503,
        body: { detail: 'Service Unavailable', correlation_id: expect.stringMatching(/^[0-9a-f-]{36}$/) },
      });
      expect((await fetch(`${served.server.url}/health`)).status).toBe(200);
    } finally {
      await served.server.stop();
      await served.store.close();
      relay.close();
    }
  });

  it('a database that accepts connections but never answers at start: a message naming it and exit code 2', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `postgres://agent:secret@127.0.0.1:${(silent.address() as net.AddressInfo).port}/events`;
    const child = spawnScript('src/cli/start.ts', ['--port', '0', '--database-url', url], { label: 'server' });
    let output = '';
    child.child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const exit = await child.exited;
      expect(exit.code).toBe(2);
      expect(output).toContain('Cannot use the database at postgres://agent:***@127.0.0.1');
      expect(output).not.toContain('secret');
      expect(output).not.toMatch(/\n\s+at /);
    } finally {
      await child.stop(1000);
      silent.close();
    }
  });

  it('the database lost while serving: 503 with a correlation id in the log, never a hang; answers resume when it is back', async () => {
    const served = await serveInProcess(primary.url);
    try {
      const request = served.server.url + REQUESTS[0]!;
      const before = await (await fetch(request)).text();
      await primary.kill();
      for (const path of [REQUESTS[0]!, REQUESTS[3]!, REQUESTS[9]!, REQUESTS[10]!]) {
        const started = performance.now();
        const response = await fetch(served.server.url + path);
        const body = (await response.json()) as { detail: string; correlation_id: string };
        expect(performance.now() - started).toBeLessThan(10_000);
        expect({ status: response.status, logs: response.status === 503 ? [] : served.logs.slice(-2) }).toEqual({ status: 503, logs: [] });
        expect(body).toEqual({ detail: 'Service Unavailable', correlation_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
        expect(served.logs.some((line) => line.includes(body.correlation_id) && line.includes('storage unavailable'))).toBe(true);
      }
      expect((await fetch(`${served.server.url}/health`)).status).toBe(200);
      await primary.restart();
      await eventually(async () => expect(await (await fetch(request)).text()).toBe(before), { withinMs: 20_000, everyMs: 200 });
    } finally {
      await served.server.stop();
      await served.store.close();
    }
  });
});

/** A TCP relay to the database that can go silent: connections stay open, nothing passes either way. */
async function relayTo(databaseUrl: string): Promise<{ url: string; goSilent(): void; close(): void }> {
  const target = new URL(databaseUrl);
  let silent = false;
  const sockets = new Set<net.Socket>();
  const relay = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('data', (chunk) => silent || upstream.write(chunk));
    upstream.on('data', (chunk) => silent || client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.port = String((relay.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    goSilent: () => {
      silent = true;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      relay.close();
    },
  };
}

/**
 * Every check of the kit, at every level: the catalog, the socket and the trajectory
 * download (whose archives --compare compares by their entries) are checked and compared as the events are.
 */
function everyCheck(): string[] {
  const document = loadOpenApiDocument();
  const read = readSearchContract(document);
  if (!read.ok) throw new Error(read.problem);
  return allChecks(read.contract).flatMap((check) => ['--only', check.id]);
}
