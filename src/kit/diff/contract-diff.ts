/**
 * What changed between two versions of the contract, and whom each change breaks. The
 * interface is read-only: clients send parameters and read responses, servers read
 * parameters and send responses. So a narrower parameter breaks clients (a request that
 * was valid is not), a wider one breaks servers (they must accept more); a narrower
 * response breaks servers (what they send may no longer be allowed), a wider one breaks
 * clients (they may meet what they never handled). An operation added is a new duty for
 * servers; one removed breaks the clients that call it.
 */
import { isDeepStrictEqual } from 'node:util';
import { followReferences } from '../../contract';

export type Party = 'clients' | 'servers';

export interface ContractChange {
  /** Where: `GET /api/.../search`, then the parameter or the response path. */
  where: string;
  what: string;
  /** Whom it breaks; empty when compatible. */
  breaks: Party[];
}

type Json = Record<string, unknown>;
type Side = 'request' | 'response';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const NARROWER_BREAKS: Record<Side, Party> = { request: 'clients', response: 'servers' };
const WIDER_BREAKS: Record<Side, Party> = { request: 'servers', response: 'clients' };

export function diffContracts(before: Json, after: Json): ContractChange[] {
  const changes: ContractChange[] = [];
  const oldOperations = operationsOf(before);
  const newOperations = operationsOf(after);
  for (const [key, operation] of oldOperations) {
    const successor = newOperations.get(key);
    if (!successor) {
      const moved = [...newOperations].find(
        ([, candidate]) => candidate.operationId !== undefined && candidate.operationId === operation.operationId,
      );
      changes.push(
        moved
          ? { where: key, what: `operation ${operation.operationId} moved to ${moved[0]}`, breaks: ['clients', 'servers'] }
          : { where: key, what: `operation ${operation.operationId ?? ''} removed`.replace('  ', ' '), breaks: ['clients'] },
      );
      continue;
    }
    const walker = new SchemaWalker(before, after, changes);
    if (operation.operationId !== successor.operationId) {
      changes.push({
        where: key,
        what: `operationId renamed from ${operation.operationId} to ${successor.operationId} (generated client methods change name)`,
        breaks: ['clients'],
      });
    }
    diffParameters(key, operation, successor, walker, changes);
    diffResponses(key, operation, successor, walker, changes);
  }
  for (const [key, operation] of newOperations) {
    const movedHere = [...oldOperations].some(
      ([oldKey, candidate]) => !newOperations.has(oldKey) && candidate.operationId !== undefined && candidate.operationId === operation.operationId,
    );
    if (!oldOperations.has(key) && !movedHere)
      changes.push({ where: key, what: `operation ${operation.operationId ?? ''} added: servers must implement it`, breaks: ['servers'] });
  }
  return changes;
}

interface Operation {
  operationId?: string;
  parameters: Map<string, Json>;
  responses: Json;
}

function operationsOf(document: Json): Map<string, Operation> {
  const operations = new Map<string, Operation>();
  for (const [path, item] of Object.entries((document['paths'] ?? {}) as Record<string, Json>)) {
    const shared = (item['parameters'] ?? []) as Json[];
    for (const method of METHODS) {
      const raw = item[method] as Json | undefined;
      if (!raw) continue;
      const parameters = new Map<string, Json>();
      for (const parameter of [...shared, ...((raw['parameters'] ?? []) as Json[])]) {
        const resolved = resolveRef(document, parameter);
        parameters.set(`${String(resolved['in'])} parameter ${String(resolved['name'])}`, resolved);
      }
      operations.set(`${method.toUpperCase()} ${path}`, {
        ...(typeof raw['operationId'] === 'string' ? { operationId: raw['operationId'] } : {}),
        parameters,
        responses: (raw['responses'] ?? {}) as Json,
      });
    }
  }
  return operations;
}

function diffParameters(key: string, before: Operation, after: Operation, walker: SchemaWalker, changes: ContractChange[]): void {
  const renamed = renamedParameters(before, after);
  for (const [name, parameter] of before.parameters) {
    const successor = after.parameters.get(name);
    const where = `${key} ${name}`;
    const newName = renamed.get(name);
    if (newName !== undefined) {
      changes.push({
        where,
        what: `parameter renamed to ${String(after.parameters.get(newName)?.['name'])}: clients sending the old name are not heard`,
        breaks: ['clients', 'servers'],
      });
      continue;
    }
    if (!successor) {
      changes.push({ where, what: 'parameter removed', breaks: ['clients'] });
      continue;
    }
    if (parameter['required'] !== true && successor['required'] === true)
      changes.push({ where, what: 'parameter made required', breaks: ['clients'] });
    if (parameter['required'] === true && successor['required'] !== true)
      changes.push({ where, what: 'parameter made optional: servers must handle its absence', breaks: ['servers'] });
    walker.compare(parameter['schema'], successor['schema'], where, 'request');
  }
  const renamedTo = new Set(renamed.values());
  for (const [name, parameter] of after.parameters) {
    if (before.parameters.has(name) || renamedTo.has(name)) continue;
    const required = parameter['required'] === true;
    changes.push({
      where: `${key} ${name}`,
      what: required ? 'required parameter added' : 'optional parameter added: servers must honour it',
      breaks: required ? ['clients', 'servers'] : ['servers'],
    });
  }
}

/**
 * Parameters that only changed name: one removed and one added in the same place (`in`),
 * alike in everything else. Paired only when each has exactly one such counterpart, so
 * a rename reads as one change rather than a removal and an addition.
 */
function renamedParameters(before: Operation, after: Operation): Map<string, string> {
  const removed = [...before.parameters].filter(([name]) => !after.parameters.has(name));
  const added = [...after.parameters].filter(([name]) => !before.parameters.has(name));
  const alike = (a: Json, b: Json) =>
    isDeepStrictEqual({ ...a, name: undefined, description: undefined }, { ...b, name: undefined, description: undefined });
  const pairs = new Map<string, string>();
  for (const [oldName, parameter] of removed) {
    const matches = added.filter(([, candidate]) => alike(parameter, candidate));
    const [match] = matches;
    if (matches.length !== 1 || !match) continue;
    if (removed.filter(([, other]) => alike(other, match[1])).length !== 1) continue;
    pairs.set(oldName, match[0]);
  }
  return pairs;
}

function diffResponses(key: string, before: Operation, after: Operation, walker: SchemaWalker, changes: ContractChange[]): void {
  for (const [status, response] of Object.entries(before.responses)) {
    const successor = after.responses[status] as Json | undefined;
    const where = `${key} response ${status}`;
    if (!successor) {
      changes.push({ where, what: 'response status removed: servers that send it now break the contract', breaks: ['servers'] });
      continue;
    }
    walker.compare(jsonSchemaOf(walker.before, response as Json), jsonSchemaOf(walker.after, successor), where, 'response');
  }
  for (const status of Object.keys(after.responses)) {
    if (!(status in before.responses))
      changes.push({ where: `${key} response ${status}`, what: 'response status added: clients may receive it', breaks: ['clients'] });
  }
}

function jsonSchemaOf(document: Json, response: Json): unknown {
  const resolved = resolveRef(document, response);
  return ((resolved['content'] as Record<string, Json> | undefined)?.['application/json'] as Json | undefined)?.['schema'];
}

/** A reference that leads nowhere reads as an empty object: the diff reports what it can of a broken document. */
function resolveRef(document: Json, node: Json): Json {
  try {
    return followReferences(document, node);
  } catch {
    return {};
  }
}

/** Compares two schemas in the direction their data flows, once per pair of `$ref`s (the event unions are recursive). */
class SchemaWalker {
  private readonly seen = new Set<string>();
  constructor(
    readonly before: Json,
    readonly after: Json,
    private readonly changes: ContractChange[],
  ) {}

  compare(oldNode: unknown, newNode: unknown, where: string, side: Side): void {
    if (!isObject(oldNode) || !isObject(newNode)) {
      if (oldNode !== undefined && newNode === undefined) this.add(where, 'schema removed', [NARROWER_BREAKS[side], WIDER_BREAKS[side]]);
      return;
    }
    // Keywords beside a `$ref` (a property's own `default`) make the pair a different comparison.
    const refPair = `${JSON.stringify(oldNode)}|${JSON.stringify(newNode)}|${side}`;
    if (typeof oldNode['$ref'] === 'string' || typeof newNode['$ref'] === 'string') {
      if (this.seen.has(refPair)) return;
      this.seen.add(refPair);
    }
    const a = resolveRef(this.before, oldNode);
    const b = resolveRef(this.after, newNode);
    this.compareTypes(a, b, where, side);
    this.compareEnums(a, b, where, side);
    this.compareBounds(a, b, where, side);
    this.compareDefaults(a, b, where, side);
    this.compareProperties(a, b, where, side);
    if (a['items'] !== undefined || b['items'] !== undefined) this.compare(a['items'], b['items'], `${where}[]`, side);
    this.compareUnion(a, b, where, side);
    const oldParts = (a['allOf'] ?? []) as unknown[];
    const newParts = (b['allOf'] ?? []) as unknown[];
    oldParts.forEach((part, index) => {
      this.compare(part, newParts[index], `${where} (allOf ${index})`, side);
    });
  }

  private add(where: string, what: string, breaks: Party[]): void {
    this.changes.push({ where, what, breaks: [...new Set(breaks)] });
  }

  private compareTypes(a: Json, b: Json, where: string, side: Side): void {
    const oldTypes = typesOf(a);
    const newTypes = typesOf(b);
    if (!oldTypes || !newTypes) return;
    // integer is a subset of number: number -> integer narrows, integer -> number widens.
    const removed = [...oldTypes].filter((type) => !newTypes.has(type) && !(type === 'integer' && newTypes.has('number')));
    const added = [...newTypes].filter((type) => !oldTypes.has(type) && !(type === 'integer' && oldTypes.has('number')));
    if (removed.length > 0) this.add(where, `type narrowed: ${removed.join(', ')} no longer allowed`, [NARROWER_BREAKS[side]]);
    if (added.length > 0) this.add(where, `type widened: ${added.join(', ')} now allowed`, [WIDER_BREAKS[side]]);
  }

  private compareEnums(a: Json, b: Json, where: string, side: Side): void {
    const oldValues = enumOf(a);
    const newValues = enumOf(b);
    if (!oldValues && !newValues) return;
    if (!oldValues) {
      this.add(where, `values restricted to ${JSON.stringify(newValues)}`, [NARROWER_BREAKS[side]]);
      return;
    }
    if (!newValues) {
      this.add(where, `value restriction ${JSON.stringify(oldValues)} lifted`, [WIDER_BREAKS[side]]);
      return;
    }
    const removed = oldValues.filter((value) => !newValues.some((other) => isDeepStrictEqual(value, other)));
    const added = newValues.filter((value) => !oldValues.some((other) => isDeepStrictEqual(value, other)));
    if (removed.length > 0)
      this.add(where, `enum narrowed: ${removed.map((value) => JSON.stringify(value)).join(', ')} removed`, [NARROWER_BREAKS[side]]);
    if (added.length > 0) this.add(where, `enum widened: ${added.map((value) => JSON.stringify(value)).join(', ')} added`, [WIDER_BREAKS[side]]);
  }

  private compareBounds(a: Json, b: Json, where: string, side: Side): void {
    for (const [keyword, upper] of BOUNDS) {
      const before = a[keyword];
      const after = b[keyword];
      if (before === after) continue;
      const narrower = before === undefined || (typeof after === 'number' && typeof before === 'number' && (upper ? after < before : after > before));
      const wider = after === undefined || (typeof after === 'number' && typeof before === 'number' && (upper ? after > before : after < before));
      const described = `${keyword} ${before === undefined ? 'added' : after === undefined ? 'removed' : 'changed'} (${String(before)} -> ${String(after)})`;
      if (narrower) this.add(where, `bound narrowed: ${described}`, [NARROWER_BREAKS[side]]);
      else if (wider) this.add(where, `bound widened: ${described}`, [WIDER_BREAKS[side]]);
    }
    for (const keyword of ['pattern', 'format'] as const) {
      if (a[keyword] === b[keyword]) continue;
      this.add(
        where,
        `${keyword} changed (${String(a[keyword])} -> ${String(b[keyword])})`,
        a[keyword] === undefined ? [NARROWER_BREAKS[side]] : b[keyword] === undefined ? [WIDER_BREAKS[side]] : ['clients', 'servers'],
      );
    }
  }

  /**
   * A default is what a value left out means: in a request, what the server does for a client
   * that omits the parameter; in a response, what a client reads an absent property as.
   */
  private compareDefaults(a: Json, b: Json, where: string, side: Side): void {
    const had = 'default' in a;
    const has = 'default' in b;
    if (!had && !has) return;
    if (had && has && isDeepStrictEqual(a['default'], b['default'])) return;
    const before = JSON.stringify(a['default']);
    const after = JSON.stringify(b['default']);
    if (had && has)
      this.add(
        where,
        side === 'request'
          ? `default changed (${before} -> ${after}): clients that leave it out get a different answer`
          : `default changed (${before} -> ${after}): clients read an absent value differently`,
        ['clients'],
      );
    else if (has)
      this.add(
        where,
        side === 'request'
          ? `default added (${after}): servers must apply it when the value is left out`
          : `default added (${after}): an absent value now has a stated meaning`,
        side === 'request' ? ['servers'] : [],
      );
    else
      this.add(
        where,
        side === 'request'
          ? `default removed (was ${before}): clients that leave it out no longer know what they get`
          : `default removed (was ${before}): clients can no longer read an absent value as it`,
        ['clients'],
      );
  }

  private compareProperties(a: Json, b: Json, where: string, side: Side): void {
    const oldProperties = (a['properties'] ?? {}) as Json;
    const newProperties = (b['properties'] ?? {}) as Json;
    const oldRequired = new Set((a['required'] ?? []) as string[]);
    const newRequired = new Set((b['required'] ?? []) as string[]);
    const closed = b['additionalProperties'] === false;
    const renamed = renamedProperties(oldProperties, newProperties, oldRequired, newRequired);
    for (const name of Object.keys(oldProperties)) {
      const at = `${where}.${name}`;
      const newName = renamed.get(name);
      if (newName !== undefined) {
        this.add(at, `property renamed to ${newName}`, ['clients', 'servers']);
        continue;
      }
      if (!(name in newProperties)) {
        this.add(at, 'property removed', side === 'response' ? ['clients', ...(closed ? (['servers'] as Party[]) : [])] : ['clients']);
        continue;
      }
      if (oldRequired.has(name) && !newRequired.has(name)) this.add(at, 'property made optional', [side === 'response' ? 'clients' : 'servers']);
      if (!oldRequired.has(name) && newRequired.has(name)) this.add(at, 'property made required', [side === 'response' ? 'servers' : 'clients']);
      this.compare(oldProperties[name], newProperties[name], at, side);
    }
    const renamedTo = new Set(renamed.values());
    for (const name of Object.keys(newProperties)) {
      if (name in oldProperties || renamedTo.has(name)) continue;
      const required = newRequired.has(name);
      if (side === 'response')
        this.add(
          `${where}.${name}`,
          required ? 'required property added: servers must send it' : 'optional property added',
          required ? ['servers'] : [],
        );
      else this.add(`${where}.${name}`, required ? 'required property added' : 'optional property added', required ? ['clients'] : ['servers']);
    }
  }

  /** Unions: members matched by discriminator value (event kinds) when there is a mapping, else by position. */
  private compareUnion(a: Json, b: Json, where: string, side: Side): void {
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const oldMembers = (a[keyword] ?? []) as unknown[];
      const newMembers = (b[keyword] ?? []) as unknown[];
      if (oldMembers.length === 0 && newMembers.length === 0) continue;
      const oldMapping = mappingOf(a);
      const newMapping = mappingOf(b);
      if (oldMapping && newMapping) {
        for (const [kind, ref] of Object.entries(oldMapping)) {
          if (!(kind in newMapping)) this.add(where, `union member ${kind} removed`, [NARROWER_BREAKS[side]]);
          else this.compare({ $ref: ref }, { $ref: newMapping[kind] }, `${where} <${kind}>`, side);
        }
        for (const kind of Object.keys(newMapping)) if (!(kind in oldMapping)) this.add(where, `union member ${kind} added`, [WIDER_BREAKS[side]]);
        continue;
      }
      const oldRest = oldMembers.filter((member) => !isNullSchema(member));
      const newRest = newMembers.filter((member) => !isNullSchema(member));
      oldRest.forEach((member, index) => {
        if (index < newRest.length) this.compare(member, newRest[index], where, side);
        else this.add(where, `${keyword} member ${index} removed`, [NARROWER_BREAKS[side]]);
      });
      for (let index = oldRest.length; index < newRest.length; index++) this.add(where, `${keyword} member ${index} added`, [WIDER_BREAKS[side]]);
    }
  }
}

const BOUNDS: [string, boolean][] = [
  ['maximum', true],
  ['exclusiveMaximum', true],
  ['maxLength', true],
  ['maxItems', true],
  ['minimum', false],
  ['exclusiveMinimum', false],
  ['minLength', false],
  ['minItems', false],
];

/** The JSON types a schema allows, `null` from `anyOf [X, null]` included; undefined when it says nothing of types. */
/**
 * Properties that only changed name: one gone and one new with the same schema and the
 * same required-ness, each the other's only such counterpart (as renamedParameters).
 */
function renamedProperties(before: Json, after: Json, oldRequired: Set<string>, newRequired: Set<string>): Map<string, string> {
  const gone = Object.keys(before).filter((name) => !(name in after));
  const fresh = Object.keys(after).filter((name) => !(name in before));
  const alike = (oldName: string, newName: string) =>
    oldRequired.has(oldName) === newRequired.has(newName) && isDeepStrictEqual(before[oldName], after[newName]);
  const pairs = new Map<string, string>();
  for (const oldName of gone) {
    const matches = fresh.filter((newName) => alike(oldName, newName));
    if (matches.length !== 1 || gone.filter((other) => alike(other, matches[0]!)).length !== 1) continue;
    pairs.set(oldName, matches[0]!);
  }
  return pairs;
}

function typesOf(schema: Json): Set<string> | undefined {
  const declared = schema['type'];
  const types = new Set<string>(Array.isArray(declared) ? (declared as string[]) : typeof declared === 'string' ? [declared] : []);
  const members = [...((schema['anyOf'] ?? []) as unknown[]), ...((schema['oneOf'] ?? []) as unknown[])];
  if (members.some(isNullSchema)) types.add('null');
  if (types.size === 0) return undefined;
  if (!declared && members.some((member) => !isNullSchema(member))) return undefined;
  return types;
}

function enumOf(schema: Json): unknown[] | undefined {
  if (Array.isArray(schema['enum'])) return schema['enum'] as unknown[];
  return 'const' in schema ? [schema['const']] : undefined;
}

function mappingOf(schema: Json): Record<string, string> | undefined {
  return ((schema['discriminator'] as Json | undefined)?.['mapping'] as Record<string, string> | undefined) ?? undefined;
}

function isNullSchema(node: unknown): boolean {
  return isObject(node) && node['type'] === 'null';
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isBreaking(changes: readonly ContractChange[]): boolean {
  return changes.some((change) => change.breaks.length > 0);
}

/** One line per change, breaking ones first. */
export function renderChanges(changes: readonly ContractChange[]): string {
  if (changes.length === 0) return 'No change to the contract.\n';
  const label = (change: ContractChange) => (change.breaks.length === 0 ? 'compatible' : `BREAKING for ${change.breaks.join(' and ')}`);
  const ordered = [...changes].sort((x, y) => y.breaks.length - x.breaks.length);
  const breaking = changes.filter((change) => change.breaks.length > 0).length;
  return `${ordered.map((change) => `${label(change)}: ${change.where}: ${change.what}`).join('\n')}\n${breaking} breaking, ${changes.length - breaking} compatible\n`;
}
