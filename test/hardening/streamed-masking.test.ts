/**
 * The secret policy over JSON bytes in pieces (src/secrets/masked-json-stream.ts) against the
 * policy over the parsed document (maskedCopy): random documents built from the policy's own
 * names, known values and Fernet tokens, written compactly, indented or with every character
 * escaped, cut at random places, give the same JSON value, and nothing is written when there is
 * nothing to mask.
 */
import fc from 'fast-check';
import { KnownSecrets, maskedCopy } from '../../src/secrets';
import { LATE_CREDENTIALS, maskedJsonPieces, maskingPlan } from '../../src/secrets/masked-json-stream';

const KNOWN = new KnownSecrets(['sk-known-secret-0001', 'known-é-😀-0002', 'token-0003', 'ken-0003-xyz']);
const FERNET = 'gAAAAABfernet-ciphertext-0004';

const NAMES = [
  'api_key',
  'env',
  'headers',
  'secrets',
  'secret_sources',
  'kind',
  'description',
  'strategy',
  'value',
  'encrypted_content',
  'text',
  'content',
  'llm',
  '__proto__',
];

/** Strings made of pieces the policy reacts to and ordinary text around them. */
const text = fc
  .array(
    fc.oneof(
      fc.constantFrom(...KNOWN.values, FERNET, 'gAAAAA', 'gAAAAAshort', '**********', '', 'é', '😀', '\n', '"', '\\', '/'),
      fc.string({ maxLength: 12 }),
      fc.string({ unit: 'grapheme', maxLength: 6 }),
    ),
    { maxLength: 5 },
  )
  .map((parts) => parts.join(''));

const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    tie('array'),
    tie('object'),
    tie('credential'),
  ),
  /** An MCP credential, its `strategy` before or after its `value` (or not a string, so no credential). */
  credential: fc
    .tuple(tie('value'), fc.oneof(text, fc.integer()), tie('value'), fc.boolean())
    .map(([value, strategy, other, after]) => (after ? { value, other, strategy } : { strategy, other, value })),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...NAMES), fc.string({ maxLength: 6 })), tie('value')), { maxLength: 5 }).map((members) => {
    const object: Record<string, unknown> = {};
    for (const [name, value] of members) Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
    return object;
  }),
})).value;

/** Each character of the JSON text's strings written as an escape, as a hostile writer may. */
function allEscaped(value: unknown): string {
  return JSON.stringify(value).replace(/"((?:[^"\\]|\\.)*)"/g, (_whole, inner: string) => {
    const decoded = JSON.parse(`"${inner}"`) as string;
    return `"${[...decoded].map((character) => [...character].map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')).join('')}"`;
  });
}

function cutAt(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    pieces.push(bytes.subarray(from, point));
    from = point;
  }
  return pieces;
}

async function* inPieces(pieces: Buffer[]): AsyncGenerator<Buffer> {
  for (const piece of pieces) yield piece;
}

/** Both readings, as the exports make them. */
async function streamed(pieces: Buffer[], maskProviderCiphertext: boolean, json = false): Promise<string> {
  const options = { maskProviderCiphertext, oneLine: true, json };
  const plan = await maskingPlan(() => inPieces(pieces), KNOWN, options);
  if (plan.kind !== 'streamed') throw new Error(`planned ${JSON.stringify(plan)}`);
  const out: Buffer[] = [];
  for await (const piece of maskedJsonPieces(inPieces(pieces), KNOWN, plan, options)) out.push(piece);
  return Buffer.concat(out).toString('utf8');
}

test('masking JSON bytes in pieces gives the value maskedCopy gives, wherever the pieces are cut', async () => {
  await fc.assert(
    fc.asyncProperty(
      json,
      fc.constantFrom('compact', 'indented', 'escaped'),
      fc.array(fc.nat(), { maxLength: 12 }),
      fc.boolean(),
      // Told the bytes are JSON (a stored event), the first look may skip the planning reading.
      fc.boolean(),
      async (value, layout, cuts, maskProviderCiphertext, json) => {
        const written = layout === 'compact' ? JSON.stringify(value) : layout === 'indented' ? JSON.stringify(value, null, 2) : allEscaped(value);
        const bytes = Buffer.from(written, 'utf8');
        const expected = maskedCopy(JSON.parse(written), KNOWN, { maskProviderCiphertext });
        const plan = await maskingPlan(() => inPieces(cutAt(bytes, cuts)), KNOWN, { maskProviderCiphertext, oneLine: true, json });
        expect(plan.kind).not.toBe('notJson');
        if (plan.kind === 'unchanged') {
          expect(expected.changed).toBe(false);
          return;
        }
        const masked = await streamed(cutAt(bytes, cuts), maskProviderCiphertext, json);
        expect(masked.includes('\n')).toBe(false);
        expect(JSON.parse(masked)).toEqual(expected.value);
      },
    ),
    { numRuns: 2000 },
  );
});

test('a credential whose strategy comes after its value has the value masked, however deep the value and however cut', async () => {
  const credential = { value: { token: 'clear-token', list: ['', '**********', 'more'] }, note: 'x', strategy: 'bearer' };
  const document = { mcp: [{ credential }, { value: 'not a credential', other: 1 }] };
  const bytes = Buffer.from(JSON.stringify(document));
  for (let cut = 0; cut <= bytes.length; cut++) {
    const masked = JSON.parse(await streamed([bytes.subarray(0, cut), bytes.subarray(cut)], false));
    expect(masked).toEqual(maskedCopy(document, KNOWN).value);
    expect(masked.mcp[0].credential.value).toEqual({ token: '**********', list: ['', '**********', '**********'] });
    expect(masked.mcp[1].value).toBe('not a credential');
  }
});

test("past the credentials a reading notes, every later object has its value masked as a credential's: more than the walk masks, never less", async () => {
  const late = Array.from({ length: LATE_CREDENTIALS + 1 }, (_, index) => ({ value: `clear-${index}`, strategy: 'bearer' }));
  const document = { before: { value: 'not a credential' }, late, after: { value: 'not one either' }, text: 'sk-known-secret-0001' };
  const bytes = Buffer.from(JSON.stringify(document));
  const plan = await maskingPlan(() => inPieces([bytes]), KNOWN);
  expect(plan).toMatchObject({ kind: 'streamed', valuesMaskedFrom: LATE_CREDENTIALS + 2 });
  const masked = JSON.parse(await streamed(cutAt(bytes, [1000, 77_777]), false));
  const walked = maskedCopy(document, KNOWN).value;
  // Every credential masked, as the walk masks them; the object before the place kept as the walk keeps it; the one after masked too.
  expect(masked.late).toEqual(walked.late);
  expect(masked.before).toEqual({ value: 'not a credential' });
  expect(masked.after).toEqual({ value: '**********' });
  expect(masked.text).toBe('**********');
  // A credential nested in one whose strategy comes last is masked too, however many came before it.
  const nested = { outer: { value: { inner: late }, strategy: 'bearer' } };
  const nestedMasked = JSON.parse(await streamed([Buffer.from(JSON.stringify(nested))], false));
  expect(nestedMasked).toEqual(maskedCopy(nested, KNOWN).value);
});

test('bytes that change between the two readings are refused, not masked as planned', async () => {
  const planned = Buffer.from(JSON.stringify({ auth: { value: 'clear', strategy: 'bearer' } }));
  const plan = await maskingPlan(() => inPieces([planned]), KNOWN);
  expect(plan.kind).toBe('streamed');
  if (plan.kind !== 'streamed') return;
  for (const read of [{ auth: { value: 'clear' } }, { auth: {}, other: { value: 'clear', strategy: 'bearer' } }]) {
    const reading = maskedJsonPieces(inPieces([Buffer.from(JSON.stringify(read))]), KNOWN, plan);
    await expect(reading.next()).rejects.toThrow('not those the first reading planned from');
  }
});

test('text that is not JSON, holding what the policy looks for, is said to be so, with why', async () => {
  for (const bad of [
    '{"password": 1',
    '{"password" 1}',
    '["password",]',
    '{"password": tru}',
    '["password", "\\x"]',
    '{"password": 1} {}',
    '["password", "a\u0001b"]',
  ])
    expect(await maskingPlan(() => inPieces([Buffer.from(bad)]), KNOWN)).toEqual({
      kind: 'notJson',
      reason: expect.stringMatching(/^not JSON|ends/),
    });
});

test('bytes holding nothing the policy looks for are unchanged without being read as JSON, as a whole document would be', async () => {
  for (const text of ['{"a": 1', '[1,]', '{"note": "no secret here"}'])
    expect(await maskingPlan(() => inPieces([Buffer.from(text)]), KNOWN)).toEqual({ kind: 'unchanged', seenClean: true });
});

test('a document nested ten thousand deep is masked without recursion', async () => {
  const depth = 10_000;
  const bytes = Buffer.from(`${'{"api_key":['.repeat(depth)}"clear"${']}'.repeat(depth)}`);
  const masked = await streamed([bytes], false);
  expect(masked).toBe(`${'{"api_key":['.repeat(depth)}"**********"${']}'.repeat(depth)}`);
});
