import { loadOpenApiDocument } from '../../src/contract';
import { createResponseValidator } from '../../src/kit/schema-validator';

/* Response bodies against openapi.yaml, with messages that say what is wrong with which item. */
const validator = createResponseValidator(loadOpenApiDocument());
const pause = { id: 'e1', timestamp: '2026-06-16T05:39:48.701247', source: 'user', kind: 'PauseEvent' };

it('takes the schemas the document declares for each operation: 200, 401, 404, 422, 500 and 503', () => {
  for (const operationId of ['searchConversationEvents', 'countConversationEvents', 'getConversationEvent']) {
    expect(validator.statusesOf(operationId).sort()).toEqual([200, 401, 404, 422, 500, 503]);
  }
  expect(validator.validate('searchConversationEvents', 418, {})).toEqual({ valid: 'no-schema' });
  expect(validator.validate('countConversationEvents', 200, 3)).toEqual({ valid: true });
  expect(validator.validate('countConversationEvents', 200, { count: 3 }).valid).toBe(false);
  expect(validator.validate('getConversationEvent', 200, pause)).toEqual({ valid: true });
  expect(validator.validate('getConversationEvent', 200, { ...pause, extra: 1 })).toEqual({
    valid: false,
    errors: ['(body) must NOT have additional properties ("extra") [PauseEvent]'],
  });
});

it.each<[string, number, unknown]>([
  ['a page', 200, { items: [pause], next_page_id: null }],
  ['a page without next_page_id (optional in the seed)', 200, { items: [] }],
  ['a 404', 404, { detail: 'Conversation not found: 8f1a2b3c-4d5e-4f70-8192-a3b4c5d6e7f8' }],
  ['a 422', 422, { detail: [{ loc: ['query', 'limit'], msg: 'Input should be greater than 0', type: 'greater_than', input: '0', ctx: { gt: 0 } }] }],
])('valid: %s', (_name, status, body) => {
  expect(validator.validate('searchConversationEvents', status, body)).toEqual({ valid: true });
});

it.each<[string, number, unknown, string]>([
  [
    'an extra property on an event',
    200,
    { items: [pause, { ...pause, id: 'e2', unexpected_field: 1 }], next_page_id: null },
    '/items/1 must NOT have additional properties ("unexpected_field") [PauseEvent]',
  ],
  ['an unknown kind', 200, { items: [{ ...pause, kind: 'Mystery' }] }, '/items/0: kind "Mystery" is not one of the contract\'s event kinds'],
  ['an extra property on the page', 200, { items: [], next_page_id: null, total: 3 }, '(body) must NOT have additional properties ("total")'],
  ['a number as cursor', 200, { items: [], next_page_id: 7 }, '/next_page_id must be string,null'],
  ['a 404 without detail', 404, { message: 'nope' }, "(body) must have required property 'detail'"],
  ['a 422 with a string detail', 422, { detail: 'bad limit' }, '/detail must be array'],
])('invalid: %s', (_name, status, body, error) => {
  const verdict = validator.validate('searchConversationEvents', status, body);
  expect(verdict.valid).toBe(false);
  expect(verdict.valid === false && verdict.errors).toContain(error);
});
