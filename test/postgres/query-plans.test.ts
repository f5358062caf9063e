/**
 * Every statement the store runs is an index walk, never a sequential scan of the events
 * table, on a database of 100k events in one conversation beside others: first pages and
 * pages after a cursor in both orders, each filter alone and combined, counts,
 * get-by-id and the trajectory's pages. EXPLAIN shows the plan the database would run with these exact values.
 */
import { Client } from 'pg';
import { createMemoryLogger } from '../../src/log';
import type { CrossSearchCriteria, SearchCriteria } from '../../src/search';
import { LARGE_EVENT_BYTES } from '../../src/store';
import { createPool } from '../../src/store/postgres/connection';
import { POSTGRES } from '../../src/store/sql/dialect';
import {
  acrossCountStatement,
  acrossPageStatement,
  feedStatement,
  countStatement,
  cursorStatement,
  eventByIdStatement,
  exportBatchStatement,
  pageStatement,
} from '../../src/store/sql/queries';
import type { Statement } from '../../src/store/sql/statement';
import { migrate } from '../../src/store/postgres/migrations';
import { eventBodiesStatement, trajectoryListingStatement } from '../../src/store/postgres/trajectory-files';
import { CLUSTER_TIMEOUT_MS, startLocalCluster, type LocalCluster } from './support/database';

const LARGE = 'a'.repeat(32);
const EVENTS = 100_000;
const KINDS = [
  'ActionEvent',
  'ObservationEvent',
  'MessageEvent',
  'SystemPromptEvent',
  'AgentErrorEvent',
  'PauseEvent',
  'TokenEvent',
  'LLMCompletionLogEvent',
];

describe('query plans over 100k events', () => {
  let cluster: LocalCluster;
  let client: Client;
  let large: number;

  beforeAll(async () => {
    cluster = await startLocalCluster();
    const pool = createPool(cluster.url, createMemoryLogger());
    await migrate(pool);
    await pool.end();
    client = new Client(cluster.url);
    await client.connect();
    // A realistic spread: mostly actions and observations, a tenth messages with prose, a
    // few events without a timestamp, and 50 small conversations beside the large one.
    await client.query(`INSERT INTO conversations (hex) SELECT $1 UNION ALL SELECT lpad(to_hex(n), 32, '0') FROM generate_series(1, 50) n`, [LARGE]);
    large = (await client.query<{ id: number }>('SELECT id FROM conversations WHERE hex = $1', [LARGE])).rows[0]!.id;
    await client.query(
      `INSERT INTO events (conversation_id, position, file_name, event_id, kind, source, sort_micros, body_text, search_text, payload)
       SELECT c.id, n, 'event-' || n || '.json', md5(c.id || '-' || n), kind, source,
              CASE WHEN n % 5000 = 0 THEN -9223372036854775808 ELSE 1767261600000000 + n::bigint * 1000000 END,
              CASE WHEN kind = 'MessageEvent' THEN 'message ' || n || ' about ' || md5(n::text) || ' and the files' END,
              'ran ls -la in /workspace/' || md5(n::text) || ' with exit code ' || (n % 3),
              convert_to('{"id":"' || n || '"}', 'UTF8')
       FROM conversations c,
            LATERAL generate_series(0, CASE WHEN c.hex = $1 THEN $2 - 1 ELSE 200 END) n,
            LATERAL (SELECT (ARRAY[${KINDS.map((kind) => `'${kind}'`).join(',')}])[1 + (n * 7 % 97) % 8] AS kind) k,
            LATERAL (SELECT (ARRAY['agent','environment','user'])[1 + n % 3] AS source) s`,
      [LARGE, EVENTS],
    );
    await client.query('VACUUM ANALYZE events');
  }, CLUSTER_TIMEOUT_MS);

  afterAll(async () => {
    await client?.end();
    await cluster?.stop();
  });

  /** The plan's node types and the relations they read, flattened. */
  async function planOf(statement: Statement): Promise<{ nodes: string[]; text: string }> {
    const result = await client.query<{ 'QUERY PLAN': unknown }>({ text: `EXPLAIN (FORMAT JSON) ${statement.text}`, values: statement.values });
    const nodes: string[] = [];
    const walk = (node: Record<string, unknown>) => {
      nodes.push(
        `${String(node['Node Type'])}${node['Relation Name'] ? ` on ${String(node['Relation Name'])}` : ''}${node['Index Name'] ? ` using ${String(node['Index Name'])}` : ''}`,
      );
      for (const child of (node['Plans'] as Record<string, unknown>[] | undefined) ?? []) walk(child);
    };
    walk((result.rows[0]!['QUERY PLAN'] as { Plan: Record<string, unknown> }[])[0]!.Plan);
    return { nodes, text: nodes.join(' > ') };
  }

  /** The plan of a statement as the store runs the search across conversations: sequential scans switched off for its transaction. */
  async function planWithoutSequentialScans(statement: Statement): Promise<{ nodes: string[]; text: string }> {
    await client.query('BEGIN; SET LOCAL enable_seqscan = off');
    try {
      return await planOf(statement);
    } finally {
      await client.query('ROLLBACK');
    }
  }

  const middle = String(1767261600000000 + (EVENTS / 2) * 1000000);
  const filterCases: [string, Omit<SearchCriteria, 'sortOrder' | 'limit'>][] = [
    ['no filter', {}],
    ['kind', { kind: 'ActionEvent' }],
    ['a rare kind', { kind: 'PauseEvent' }],
    ['source', { source: 'user' }],
    ['kind and source', { kind: 'ObservationEvent', source: 'environment' }],
    ['body matching nothing', { body: 'no such words here' }],
    ['body matching many', { body: 'the files' }],
    ['a one-letter body', { body: 'x' }],
    ['text matching nothing', { text: 'no such words here' }],
    ['text matching many', { text: 'exit code 1' }],
    ['time window', { gte: 1767261600000000 + 20_000_000_000, lt: 1767261600000000 + 30_000_000_000 }],
    ['kind and time window', { kind: 'MessageEvent', gte: 1767261600000000 + 20_000_000_000 }],
  ];

  for (const [name, filters] of filterCases) {
    for (const sortOrder of ['TIMESTAMP', 'TIMESTAMP_DESC'] as const) {
      it(`${name}, ${sortOrder}: first page, cursor and deep page use indexes`, async () => {
        const criteria: SearchCriteria = { ...filters, sortOrder, limit: 100, pageId: 'some-id' };
        for (const statement of [
          pageStatement(POSTGRES, large, undefined, criteria, 'text'),
          cursorStatement(POSTGRES, large, criteria),
          pageStatement(POSTGRES, large, { sortMicros: middle, position: String(EVENTS / 2) }, criteria, 'text'),
          pageStatement(POSTGRES, large, { sortMicros: null, position: null }, criteria, 'text'),
        ]) {
          const plan = await planOf(statement);
          expect(plan.text).not.toContain('Seq Scan on events');
          // Every index of the events table is named events_*.
          expect({ plan: plan.text, readsAnIndex: plan.nodes.some((node) => / using events_/.test(node)) }).toEqual({
            plan: plan.text,
            readsAnIndex: true,
          });
        }
      });
    }
    it(`${name}: count uses an index`, async () => {
      // A count of most of the table would rather scan it; the store walks an index, as for the search across conversations.
      const plan = await planWithoutSequentialScans(countStatement(POSTGRES, large, filters));
      expect(plan.text).not.toContain('Seq Scan on events');
    });
  }

  const key = { micros: 1767261600000000 + (EVENTS / 2) * 1000000, hex: LARGE, position: EVENTS / 2 };
  for (const [name, filters] of filterCases) {
    it(`${name}: the search across conversations walks an index, first page and from a key, both orders; its count too`, async () => {
      const plans: string[] = [];
      for (const sortOrder of ['TIMESTAMP', 'TIMESTAMP_DESC'] as const) {
        for (const after of [undefined, key, { ...key, micros: null }]) {
          const criteria: CrossSearchCriteria = { ...filters, sortOrder, limit: 100, ...(after ? { after } : {}) };
          plans.push((await planWithoutSequentialScans(acrossPageStatement(POSTGRES, criteria, 'text'))).text);
        }
      }
      plans.push((await planWithoutSequentialScans(acrossCountStatement(POSTGRES, filters))).text);
      for (const plan of plans)
        expect({ plan, sequential: plan.includes('Seq Scan on events'), indexed: / using events_/.test(plan) }).toEqual({
          plan,
          sequential: false,
          indexed: true,
        });
    });
  }

  it('a text matching nothing, in one conversation and across them, is answered from the trigram index', async () => {
    const across = await planWithoutSequentialScans(
      acrossPageStatement(POSTGRES, { text: 'no such words here', sortOrder: 'TIMESTAMP', limit: 100 }, 'text'),
    );
    expect(across.text).toContain('events_by_text');
    const one = await planOf(pageStatement(POSTGRES, large, undefined, { text: 'no such words here', sortOrder: 'TIMESTAMP', limit: 100 }, 'text'));
    expect(one.text).toContain('events_by_text');
  });

  it('a body matching nothing across conversations is answered from the trigram index', async () => {
    const plan = await planWithoutSequentialScans(
      acrossPageStatement(POSTGRES, { body: 'no such words here', sortOrder: 'TIMESTAMP', limit: 100 }, 'text'),
    );
    expect(plan.text).toContain('events_by_body');
  });

  it('an export batch walks the conversation in order from a key', async () => {
    for (const after of [undefined, key]) {
      const plan = await planWithoutSequentialScans(exportBatchStatement(POSTGRES, large, LARGE, after, 1000, LARGE_EVENT_BYTES, 'text'));
      expect(plan.text).not.toContain('Seq Scan on events');
      expect(plan.text).toMatch(/using events_(in_order|pkey)/);
    }
  });

  it("the socket's appended events and the highest append number are read from the append-order index", async () => {
    for (const after of ['0', String(EVENTS - 10)]) {
      const plan = await planOf(feedStatement(POSTGRES, large, 'appended', after, 500, 'text'));
      expect({ plan: plan.text, sequential: plan.text.includes('Seq Scan on events') }).toEqual({
        plan: expect.stringContaining('on events using events_appended'),
        sequential: false,
      });
    }
  });

  it("the trajectory's listing and its pages of event bodies walk the primary key", async () => {
    for (const statement of [trajectoryListingStatement(large), eventBodiesStatement(large, '0'), eventBodiesStatement(large, String(EVENTS / 2))]) {
      const plan = await planOf(statement);
      expect({ plan: plan.text, sequential: plan.text.includes('Seq Scan on events') }).toEqual({
        plan: expect.stringContaining('on events using events_pkey'),
        sequential: false,
      });
    }
  });

  it('get-by-id uses the id index', async () => {
    const plan = await planOf(eventByIdStatement(POSTGRES, large, 'some-id', 'text'));
    expect(plan.text).toContain('on events using events_by_id');
  });

  it('a body that matches nothing is answered from the trigram index', async () => {
    const statement = pageStatement(POSTGRES, large, undefined, { body: 'no such words here', sortOrder: 'TIMESTAMP', limit: 100 }, 'text');
    expect((await planOf(statement)).text).toContain('events_by_body');
    // How fast it answers is the bench's to measure; the plan above is what makes it fast.
    expect((await client.query(statement)).rows).toHaveLength(0);
  });
});
