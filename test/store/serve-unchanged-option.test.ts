/**
 * The start option that serves stored events unchanged (src/cli/start.ts), on the real
 * CLI in a child process over the bundled sample data.
 */
import path from 'node:path';
import { RECORDED_SAMPLE } from '../../src/fixture';
import { startServerProcess } from '../../dev/soak/server-process';

const SAMPLE = path.resolve(__dirname, '../../sample-data/conversations');
// The conversation the reference recorded itself: parent_id on every event after the first.
const RECORDED = RECORDED_SAMPLE.conversationId;

async function firstEventsAndHealth(url: string): Promise<{ items: Record<string, unknown>[]; storedEvents: Record<string, unknown> }> {
  const page = (await (await fetch(`${url}/api/conversations/${RECORDED}/events/search?limit=3`)).json()) as { items: Record<string, unknown>[] };
  const health = (await (await fetch(`${url}/health`)).json()) as { stored_events: Record<string, unknown> };
  return { items: page.items, storedEvents: health.stored_events };
}

describe('--serve-stored-events-unchanged', () => {
  it.each([
    ['the flag', { args: ['--serve-stored-events-unchanged'] }],
    ['SERVE_STORED_EVENTS_UNCHANGED=1', { env: { SERVE_STORED_EVENTS_UNCHANGED: '1' } }],
  ])(
    'set by %s, serves parent_id as stored, says so at start and on /health',
    async (_how, options) => {
      const server = await startServerProcess({ conversationsPath: SAMPLE, ...options });
      try {
        const { items, storedEvents } = await firstEventsAndHealth(server.url);
        expect(items[1]).toHaveProperty('parent_id', items[0]!['id']);
        expect(storedEvents).toMatchObject({ unlisted_properties: 'kept' });
        expect(server.stdout.join('\n')).toContain('answers may go beyond the contract');
      } finally {
        await server.stop();
      }
    },
    60_000,
  );

  it('is off by default: the same events are served without what the contract does not list', async () => {
    const server = await startServerProcess({ conversationsPath: SAMPLE });
    try {
      const { items, storedEvents } = await firstEventsAndHealth(server.url);
      expect(items.some((item) => 'parent_id' in item)).toBe(false);
      expect(storedEvents).toMatchObject({ unlisted_properties: 'removed' });
    } finally {
      await server.stop();
    }
  });

  it.each([
    [
      'with --validate-responses',
      { args: ['--serve-stored-events-unchanged', '--validate-responses'] },
      /--serve-stored-events-unchanged serves properties the contract does not list, which --validate-responses would reject/,
    ],
    [
      'with an unclear environment value',
      { env: { SERVE_STORED_EVENTS_UNCHANGED: 'maybe' } },
      /SERVE_STORED_EVENTS_UNCHANGED must be 1\/true\/yes\/on\/t\/y or 0\/false\/no\/off\/f\/n, got "maybe"/,
    ],
  ])(
    'refuses to start %s, naming the problem',
    async (_case, options, message) => {
      await expect(startServerProcess({ conversationsPath: SAMPLE, ...options })).rejects.toThrow(message);
    },
    60_000,
  );
});
