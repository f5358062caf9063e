/**
 * The one `$ref` resolver: every reader of the contract that needs the object behind a
 * local reference (`#/components/schemas/EventSortOrder`) asks here, so a reference means
 * the same thing to the server, the kit and the diff.
 */

/** Local references only: the contract is one self-contained document. */
export function resolveReference(document: object, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`The contract's $ref ${JSON.stringify(ref)} is not local (#/...); bundle the document first`);
  let current: unknown = document;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, key))
      throw new Error(`The contract's $ref ${JSON.stringify(ref)} points at nothing`);
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

const MAX_HOPS = 32;

/**
 * Follows a chain of `$ref`s to the object at its end; sibling keywords beside a `$ref` (OpenAPI 3.1
 * allows `description` and the like) win over the target's.
 */
export function followReferences<T extends object>(document: object, value: T): T {
  let current = value as Record<string, unknown>;
  for (let hops = 0; typeof current['$ref'] === 'string'; hops++) {
    if (hops > MAX_HOPS) throw new Error(`The contract's $ref chain at ${String((value as Record<string, unknown>)['$ref'])} does not end`);
    const { $ref, ...siblings } = current;
    const target = resolveReference(document, $ref as string) as Record<string, unknown>;
    // A bare reference yields its target itself, so readers that key by object identity see one schema once.
    current = Object.keys(siblings).length === 0 ? target : { ...target, ...siblings };
  }
  return current as T;
}

/**
 * A schema with every `$ref` inside it replaced by its target, for schemas that are small and
 * not recursive (parameters). A recursive reference is left as a `$ref` where it recurs.
 */
export function dereferenceSchema(document: object, schema: unknown, seen: readonly string[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((item) => dereferenceSchema(document, item, seen));
  if (typeof schema !== 'object' || schema === null) return schema;
  const record = schema as Record<string, unknown>;
  const ref = record['$ref'];
  if (typeof ref === 'string') {
    if (seen.includes(ref)) return record;
    const { $ref: _ref, ...siblings } = record;
    const target = dereferenceSchema(document, resolveReference(document, ref), [...seen, ref]) as Record<string, unknown>;
    return { ...target, ...(dereferenceSchema(document, siblings, seen) as Record<string, unknown>) };
  }
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, dereferenceSchema(document, value, seen)]));
}
