import {
  compileOperationTable,
  dereferenceSchema,
  loadOpenApiDocument,
  operationTable,
  resolveReference,
  type OpenApiDocument,
} from '../../src/contract';

/** A document with only paths: each one operation whose operationId names its template. */
function documentWith(paths: Record<string, Record<string, unknown>>, schemas: Record<string, Record<string, unknown>> = {}): OpenApiDocument {
  return { openapi: '3.1.0', paths, components: { schemas } } as OpenApiDocument;
}

const get = (operationId: string, extra: Record<string, unknown> = {}) => ({
  get: { operationId, responses: { '200': { description: 'ok' } }, ...extra },
});

describe('the operation table', () => {
  test('matches segment by segment, a literal segment before a templated one, whatever the document order', () => {
    const table = compileOperationTable(
      documentWith({ '/{a}/b/c': get('aBC'), '/x/{b}/{c}': get('xBC'), '/x/b/{c}': get('xbC'), '/x/{b}/c': get('xBc') }),
    );
    expect(table.match('GET', '/x/b/c')?.operation.operationId).toBe('xbC');
    expect(table.match('GET', '/x/y/c')?.operation.operationId).toBe('xBc');
    expect(table.match('GET', '/x/y/z')?.operation.operationId).toBe('xBC');
    expect(table.match('GET', '/w/b/c')?.operation.operationId).toBe('aBC');
    expect(table.operations.map((operation) => operation.template)).toEqual(['/x/b/{c}', '/x/{b}/c', '/x/{b}/{c}', '/{a}/b/c']);
  });

  test("the contract's search and count are never taken for an event id, and path parameters come back raw and decoded", () => {
    const table = operationTable(loadOpenApiDocument());
    const id = '0123456789abcdef0123456789abcdef';
    expect(table.match('GET', `/api/conversations/${id}/events/search`)?.operation.operationId).toBe('searchConversationEvents');
    expect(table.match('get', `/api/conversations/${id}/events/count`)?.operation.operationId).toBe('countConversationEvents');
    const byId = table.match('GET', `/api/conversations/${id}/events/a%20b`);
    expect(byId).toMatchObject({
      operation: { operationId: 'getConversationEvent' },
      segments: [id, 'a%20b'],
      pathParameters: { conversation_id: id, event_id: 'a b' },
    });
    expect(table.match('POST', `/api/conversations/${id}/events/search`)).toBeUndefined();
    expect(table.methodsAt(`/api/conversations/${id}/events/search`)).toEqual(['GET']);
    expect(table.match('GET', '/api/conversations//events/search')).toBeUndefined();
  });

  test('parameters come with their schemas resolved, path-item parameters shared, an operation parameter overriding one of the same name', () => {
    const document = documentWith(
      {
        '/items/{id}': {
          parameters: [
            { name: 'id', in: 'path', schema: { type: 'string' } },
            { name: 'order', in: 'query', schema: { type: 'string' } },
          ],
          get: {
            operationId: 'getItem',
            parameters: [{ $ref: '#/components/parameters/Order' }],
            responses: { '200': { $ref: '#/components/responses/Item' }, '4XX': { description: 'no' } },
          },
        },
      },
      { Order: { type: 'string', enum: ['UP', 'DOWN'], default: 'UP' }, Item: { type: 'object' } },
    );
    Object.assign(document.components, {
      parameters: { Order: { name: 'order', in: 'query', schema: { $ref: '#/components/schemas/Order' } } },
      responses: { Item: { description: 'an item', content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } } } },
    });
    const table = compileOperationTable(document);
    const operation = table.byId('getItem')!;
    expect(operation.parameters.map((parameter) => [parameter.name, parameter.in, parameter.required])).toEqual([
      ['id', 'path', true],
      ['order', 'query', false],
    ]);
    expect(operation.parameters[1]?.schema).toEqual({ type: 'string', enum: ['UP', 'DOWN'], default: 'UP' });
    expect(operation.statuses).toEqual(['200', '4XX']);
    expect(operation.responses[0]).toEqual({ status: '200', mediaTypes: ['application/json'], jsonSchema: { $ref: '#/components/schemas/Item' } });
  });

  test("the contract's sort_order parameter is read through its $ref", () => {
    const search = operationTable(loadOpenApiDocument()).byId('searchConversationEvents')!;
    const sortOrder = search.parameters.find((parameter) => parameter.name === 'sort_order')!;
    expect(sortOrder.schema.enum).toEqual(['TIMESTAMP', 'TIMESTAMP_DESC']);
  });
});

describe('the $ref resolver', () => {
  const document = { components: { schemas: { 'a/b': { type: 'string' }, Tree: { properties: { child: { $ref: '#/components/schemas/Tree' } } } } } };

  test('reads escaped pointers and names a reference that leads nowhere', () => {
    expect(resolveReference(document, '#/components/schemas/a~1b')).toEqual({ type: 'string' });
    expect(() => resolveReference(document, '#/components/schemas/Missing')).toThrow('points at nothing');
    expect(() => resolveReference(document, 'other.yaml#/x')).toThrow('not local');
  });

  test('dereferences a schema and stops where it recurs', () => {
    expect(dereferenceSchema(document, { $ref: '#/components/schemas/Tree' })).toEqual({
      properties: { child: { $ref: '#/components/schemas/Tree' } },
    });
  });
});
