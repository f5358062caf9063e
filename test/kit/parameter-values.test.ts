import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { loadOpenApiDocument, operationTable, type ParameterSchema } from '../../src/contract';
import { invalidValues, validValue, valueProblem } from '../../src/kit/parameter-values';

/*
 * The values the contract-driven checks send, judged by Ajv against the very schema they
 * come from, read as a query string is read (integers coerced): every valid value is
 * accepted, every invalid one rejected. For the contract's own parameters and for schemas
 * with the keywords it does not use yet.
 */
const ajv = new Ajv2020({ strict: false, coerceTypes: true });
addFormats(ajv, { mode: 'full' });

function accepts(schema: ParameterSchema, value: string): boolean {
  // As a query carries it: a string, coerced to the schema's type by the validator.
  const holder = { value };
  return ajv.validate({ type: 'object', properties: { value: schema } }, holder);
}

const contractParameters = operationTable(loadOpenApiDocument()).operations.flatMap((operation) =>
  operation.parameters.map((parameter) => [`${operation.operationId} ${parameter.name}`, parameter.schema] as const),
);
const otherSchemas: [string, ParameterSchema][] = [
  ['an integer with exclusive bounds on both sides', { type: 'integer', exclusiveMinimum: -3, exclusiveMaximum: 7 }],
  ['an integer with a minimum of zero', { type: 'integer', minimum: 0, maximum: 10, default: 0 }],
  ['a nullable enum written with anyOf', { anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }] }],
  ['a bounded string', { type: 'string', minLength: 2, maxLength: 5 }],
  ['a date', { type: 'string', format: 'date' }],
  ['a boolean', { type: 'boolean' }],
];

describe.each([...contractParameters, ...otherSchemas])('%s', (_name, schema) => {
  it('every generated valid value is accepted by its schema', () => {
    fc.assert(
      fc.property(validValue(schema), (value) => value === undefined || accepts(schema, value)),
      { seed: 20261125, numRuns: 200 },
    );
  });

  it('every invalid value is rejected by its schema', () => {
    for (const invalid of invalidValues(schema))
      expect({ ...invalid, accepted: accepts(schema, invalid.value) }).toEqual({ ...invalid, accepted: false });
  });

  it("the proxy's reading of a sent value agrees: no problem with a valid one, one with each invalid one", () => {
    fc.assert(
      fc.property(validValue(schema), (value) => value === undefined || valueProblem(schema, value) === undefined),
      { seed: 20261125, numRuns: 200 },
    );
    for (const invalid of invalidValues(schema))
      expect({ ...invalid, problem: valueProblem(schema, invalid.value) }).toEqual({ ...invalid, problem: expect.any(String) });
  });
});

it("the search's limit is tried one step outside each bound, as a fraction and as text", () => {
  const search = operationTable(loadOpenApiDocument()).byId('searchConversationEvents')!;
  const limit = search.parameters.find((parameter) => parameter.name === 'limit')!;
  expect(invalidValues(limit.schema).map((invalid) => invalid.value)).toEqual(['0', '101', '1.5', 'not-a-number']);
});

it('a sent value is read as the reference reads it: spaces around a number, a trailing .0, a UUID without hyphens or in braces pass', () => {
  const search = operationTable(loadOpenApiDocument()).byId('searchConversationEvents')!;
  const schemaOf = (name: string) => search.parameters.find((parameter) => parameter.name === name)!.schema;
  expect([' 5', '100.0'].map((value) => valueProblem(schemaOf('limit'), value))).toEqual([undefined, undefined]);
  expect(['0', '101', '2.5', 'ten'].map((value) => valueProblem(schemaOf('limit'), value))).toEqual([
    'not above the exclusiveMinimum 0',
    'above the maximum 100',
    'not a whole number',
    'not a number',
  ]);
  const id = '9b00fb85-9ff5-4d06-ac30-572626cb4eca';
  expect([id, id.replaceAll('-', ''), `{${id}}`, `urn:uuid:${id}`].map((value) => valueProblem(schemaOf('conversation_id'), value))).toEqual([
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
  expect(valueProblem(schemaOf('conversation_id'), 'not-an-id')).toBe('not a UUID');
  expect(['2024-02-29T23:59:59Z', '2024-01-01', '1700000000'].map((value) => valueProblem(schemaOf('timestamp__gte'), value))).toEqual([
    undefined,
    undefined,
    undefined,
  ]);
  expect(['2023-02-29T00:00:00', '2024-01-01T24:00:00', 'yesterday'].map((value) => valueProblem(schemaOf('timestamp__gte'), value))).toEqual([
    'not a date-time',
    'not a date-time',
    'not a date-time',
  ]);
});
