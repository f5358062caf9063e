/**
 * The trajectory zip reads a large event file more than once (to learn how to mask it, then to
 * send it): a file that changes between those readings cuts the archive rather than send what the
 * first reading did not plan for.
 */
import { trajectoryArchive } from '../../src/catalog/trajectory-archive';
import type { ConversationFile } from '../../src/catalog/conversation-catalog';
import { KnownSecrets } from '../../src/secrets';
import { unzipWithPython } from '../support/unzip';

const HEX = 'c0000000000040008000000000000001';
const FILLER = 'x'.repeat(2 * 1024 * 1024);

const NAME = 'events/event-00000-large.json';

/**
 * A large event file that reads as `first` until the archive has begun to send its entry (its
 * header, which names it, has come out), and as `then` after: rewritten between the archive's
 * look at it and the reading it sends.
 */
function changingFile(first: object, then: object): { file: ConversationFile; rewrite(): void } {
  const readings = [first, then].map((value) => Buffer.from(JSON.stringify(value)));
  let current = readings[0]!;
  return {
    file: {
      relativePath: NAME,
      modifiedAt: new Date('2026-11-01T10:00:00Z'),
      size: readings[0]!.length,
      read: async () => current,
      open: async () => ({
        async *pieces() {
          const bytes = current;
          for (let start = 0; start < bytes.length; start += 64 * 1024) yield bytes.subarray(start, start + 64 * 1024);
        },
        close: async () => {},
      }),
    },
    rewrite: () => {
      current = readings[1]!;
    },
  };
}

async function archived({ file, rewrite }: ReturnType<typeof changingFile>): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for await (const piece of trajectoryArchive(HEX, [file], KnownSecrets.NONE)) {
    if (piece.includes(NAME)) rewrite();
    pieces.push(piece);
  }
  return Buffer.concat(pieces);
}

test('a large event file that gains a secret field after it was found to hold none cuts the archive', async () => {
  const file = changingFile({ text: FILLER, note: 'clear' }, { text: FILLER, api_key: 'sk-late' });
  await expect(archived(file)).rejects.toThrow('was rewritten while it was archived');
});

test('a large event file that names a credential with nothing to mask, then gains its value, cuts the archive', async () => {
  const file = changingFile({ text: FILLER, auth: { strategy: 'bearer' } }, { text: FILLER, auth: { strategy: 'bearer', value: 'clear' } });
  await expect(archived(file)).rejects.toThrow('was rewritten while it was archived');
});

test('a large event file that loses the strategy its credential was planned with cuts the archive', async () => {
  const file = changingFile({ text: FILLER, auth: { value: 'clear', strategy: 'bearer' } }, { text: FILLER, auth: { value: 'clear' } });
  await expect(archived(file)).rejects.toThrow('not those the first reading planned from');
});

test('a large event file read alike both times is masked as it is read, its credential masked though its strategy comes last', async () => {
  const event = { text: FILLER, auth: { value: 'clear', strategy: 'bearer' } };
  const entries = await unzipWithPython(await archived(changingFile(event, event)));
  expect(JSON.parse(String(entries.get(`${HEX}/${NAME}`)))).toEqual({
    ...event,
    auth: { value: '**********', strategy: 'bearer' },
  });
});
