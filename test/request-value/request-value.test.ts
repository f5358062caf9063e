/**
 * The one reading of request values, by table. Each row's answer is what the pydantic and the
 * Python the pinned reference runs on give for the same text (checked with them; the HTTP and
 * socket answers are compared with the reference itself in test/reference/read-calls-against-reference.test.ts).
 */
import { jsonDecodeErrorText, parseBoolean, parseInteger, parseJsonText } from '../../src/request-value';

const BOOLEANS: [string, boolean | 'bool_parsing'][] = [
  ['true', true],
  ['True', true],
  ['tRuE', true],
  ['1', true],
  ['yes', true],
  ['on', true],
  ['t', true],
  ['y', true],
  ['FALSE', false],
  ['0', false],
  ['off', false],
  ['no', false],
  ['F', false],
  ['N', false],
  ['maybe', 'bool_parsing'],
  [' true', 'bool_parsing'],
  ['', 'bool_parsing'],
  ['1.0', 'bool_parsing'],
  ['\uff34rue', 'bool_parsing'],
];

test.each(BOOLEANS)('boolean %j', (raw, want) => {
  const reading = parseBoolean(raw);
  expect(reading.ok ? reading.value : 'bool_parsing').toBe(want);
});

const INTEGERS: [string, string | 'int_parsing'][] = [
  ['-1', '-1'],
  ['99999999999999999999999', '99999999999999999999999'],
  ['-99999999999999999999999', '-99999999999999999999999'],
  ['1.0', '1'],
  [' 5', '5'],
  ['1_0', '10'],
  ['-0', '0'],
  ['abc', 'int_parsing'],
  ['79.5', 'int_parsing'],
  ['', 'int_parsing'],
];

test.each(INTEGERS)('integer %j', (raw, want) => {
  const reading = parseInteger(raw);
  expect(reading.ok ? reading.digits : reading.type).toBe(want);
});

const JSON_TEXTS: [string, string][] = [
  ['notjson', 'Expecting value: line 1 column 1 (char 0)'],
  ['["a"', "Expecting ',' delimiter: line 1 column 5 (char 4)"],
  ['[1,]', 'Illegal trailing comma before end of array: line 1 column 3 (char 2)'],
  ['{"a":1,}', 'Illegal trailing comma before end of object: line 1 column 7 (char 6)'],
  ['{"a" 1}', "Expecting ':' delimiter: line 1 column 6 (char 5)"],
  ['{a:1}', 'Expecting property name enclosed in double quotes: line 1 column 2 (char 1)'],
  ['"abc', 'Unterminated string starting at: line 1 column 1 (char 0)'],
  ['"a\\x"', 'Invalid \\escape: line 1 column 3 (char 2)'],
  ['"\\u12"', 'Invalid \\uXXXX escape: line 1 column 3 (char 2)'],
  ['[1] x', 'Extra data: line 1 column 5 (char 4)'],
  ['["é",  "\u0001"]', 'Invalid control character at: line 1 column 9 (char 8)'],
  ['\n\n  [1,\n 2 3]', "Expecting ',' delimiter: line 4 column 4 (char 11)"],
  ['01', 'Extra data: line 1 column 2 (char 1)'],
  ['[NaN, -Infinity, 1e5]', 'ok'],
  ['[{"a":1},]', 'Illegal trailing comma before end of array: line 1 column 9 (char 8)'],
  ['{"a":[1,2],}', 'Illegal trailing comma before end of object: line 1 column 11 (char 10)'],
  ['{"a":{"b" 1}}', "Expecting ':' delimiter: line 1 column 11 (char 10)"],
  ['{"a":{1:2}}', 'Expecting property name enclosed in double quotes: line 1 column 7 (char 6)'],
];

test.each(JSON_TEXTS)('JSON text %j', (text, want) => {
  const parsed = parseJsonText(text);
  expect(parsed.ok ? 'ok' : 'tooDeep' in parsed ? parsed.tooDeep : jsonDecodeErrorText(parsed)).toBe(want);
});

test.each([
  ['9998 arrays', `${'['.repeat(9998)}${']'.repeat(9998)}`, 'ok'],
  ['9999 arrays', `${'['.repeat(9999)}${']'.repeat(9999)}`, 'maximum recursion depth exceeded while decoding a JSON array from a unicode string'],
  [
    '200,000 objects',
    `${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`,
    'maximum recursion depth exceeded while decoding a JSON object from a unicode string',
  ],
])('JSON text nested %s: read as deep as Python reads, then its RecursionError', (_name, text, want) => {
  const parsed = parseJsonText(text);
  expect(parsed.ok ? 'ok' : 'tooDeep' in parsed ? parsed.tooDeep : jsonDecodeErrorText(parsed)).toBe(want);
});
