/**
 * Removes from a stored event the properties the contract does not list, wherever the
 * contract closes an object (`additionalProperties: false` or `unevaluatedProperties:
 * false`), so a newer server's additions (`parent_id`, `extended_content`, ...) do not
 * make a whole event unservable. The walk is compiled once from the contract's `Event`
 * schema: it follows properties, array items and unions, picking a union's branch by its
 * discriminator, or by the value's JSON type when the union has none, and descends only
 * where a closed object can be reached. Ajv's own `removeAdditional` cannot do this: it
 * strips while trying each branch of a `oneOf`, so one branch's removals stay behind when
 * another branch is chosen.
 *
 * A union whose branches cannot be told apart by a discriminator or by JSON type, and
 * that leads to a closed object, is left as stored (the validator then judges the event
 * as it is); `ambiguousUnions` names any such place, and a test keeps the list empty.
 */
import { followReferences, loadOpenApiDocument, type OpenApiDocument } from '../../contract';

type Schema = Record<string, unknown>;
type JsonType = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null';

interface Rule {
  /** The JSON types the schema admits; undefined when it does not say. */
  types: ReadonlySet<JsonType> | undefined;
  /** Names a closed object lists (with `patterns`); undefined when the object is open. */
  listed: ReadonlySet<string> | undefined;
  patterns: readonly RegExp[];
  properties: Map<string, Rule>;
  /** The schema of properties `properties` does not name, when it is a schema. */
  otherProperties: Rule | undefined;
  items: Rule | undefined;
  /** A discriminated union: the tag's name and the branch for each tag value. */
  tagged: { property: string; branches: Map<string, Rule> } | undefined;
  /** A union without a discriminator. */
  branches: Rule[];
  /** Whether a closed object can be reached from here: the walk descends only where it can. */
  reachesClosed: boolean;
}

export interface UnlistedPropertyPruner {
  /**
   * The event without the properties closed objects of the contract do not list (objects
   * that keep everything are reused; the input may be changed), and the paths of what was
   * removed (`parent_id`, `action.some_field`, `thought[].x`), each once, sorted.
   */
  prune(event: unknown): { event: unknown; removed: string[] };
  /** The event kinds the contract has. */
  readonly kinds: ReadonlySet<string>;
  /** Unions that lead to closed objects but whose branches cannot be told apart (schema paths). */
  readonly ambiguousUnions: readonly string[];
}

/** Compiles the walk for the contract's `Event` schema. */
export function compileUnlistedPropertyPruner(document: OpenApiDocument = loadOpenApiDocument()): UnlistedPropertyPruner {
  const compiler = new RuleCompiler(document);
  const root = compiler.compile({ $ref: '#/components/schemas/Event' }, 'Event');
  compiler.markReachable();
  const kinds = new Set(root.tagged ? root.tagged.branches.keys() : []);
  return {
    kinds,
    ambiguousUnions: compiler.ambiguous,
    prune(event) {
      const removed: string[] = [];
      const kept = root.reachesClosed ? pruneValue(root, event, '', removed) : event;
      return { event: kept, removed: removed.length > 1 ? [...new Set(removed)].sort() : removed };
    },
  };
}

/** A rule that admits `types` and closes nothing, until its schema's parts are compiled into it. */
function emptyRule(types: ReadonlySet<JsonType> | undefined): Rule {
  return {
    types,
    listed: undefined,
    patterns: [],
    properties: new Map(),
    otherProperties: undefined,
    items: undefined,
    tagged: undefined,
    branches: [],
    reachesClosed: false,
  };
}

/** The rule of a property that may hold anything: nothing below it is closed. */
const OPEN = emptyRule(undefined);

class RuleCompiler {
  readonly ambiguous: string[] = [];
  private readonly rules = new Map<Schema, Rule>();
  private readonly unions: { rule: Rule; where: string }[] = [];

  constructor(private readonly document: OpenApiDocument) {}

  compile(schemaOrRef: Schema, where: string): Rule {
    const schema = this.resolve(schemaOrRef);
    const known = this.rules.get(schema);
    if (known) return known;
    const rule = emptyRule(typesOf(schema));
    // Registered before its parts, so a schema that refers to itself ends the recursion.
    this.rules.set(schema, rule);
    this.compileObject(schema, rule, where);
    if (isSchema(schema['items'])) rule.items = this.compile(schema['items'], `${where}[]`);
    const union = [...schemaList(schema['oneOf']), ...schemaList(schema['anyOf'])];
    if (union.length > 0) this.compileUnion(schema, union, rule, where);
    return rule;
  }

  /** Settles `reachesClosed` over the whole graph (loops included), then lists the ambiguous unions. */
  markReachable(): void {
    const all = [...this.rules.values()];
    for (const rule of all) rule.reachesClosed = rule.listed !== undefined;
    let changed = true;
    while (changed) {
      changed = false;
      for (const rule of all) {
        if (rule.reachesClosed || !childrenOf(rule).some((child) => child.reachesClosed)) continue;
        rule.reachesClosed = true;
        changed = true;
      }
    }
    for (const { rule, where } of this.unions) if (hasAmbiguousBranches(rule)) this.ambiguous.push(where);
  }

  private compileObject(schema: Schema, rule: Rule, where: string): void {
    const parts = [schema, ...schemaList(schema['allOf']).map((part) => this.resolve(part))];
    for (const part of parts) {
      const properties = part['properties'];
      if (isSchema(properties)) {
        for (const [name, child] of Object.entries(properties)) {
          if (isSchema(child)) rule.properties.set(name, this.compile(child, `${where}.${name}`));
        }
      }
      const patterns = part['patternProperties'];
      if (isSchema(patterns)) rule.patterns = [...rule.patterns, ...Object.keys(patterns).map((pattern) => new RegExp(pattern, 'u'))];
    }
    const closed = schema['additionalProperties'] === false || schema['unevaluatedProperties'] === false;
    if (closed) rule.listed = new Set(rule.properties.keys());
    else if (isSchema(schema['additionalProperties'])) rule.otherProperties = this.compile(schema['additionalProperties'], `${where}.*`);
  }

  private compileUnion(schema: Schema, union: Schema[], rule: Rule, where: string): void {
    const branches = union.map((branch, i) => this.compile(branch, `${where}|${i}`));
    const discriminator = schema['discriminator'];
    const property = isSchema(discriminator) && typeof discriminator['propertyName'] === 'string' ? discriminator['propertyName'] : undefined;
    if (property === undefined) {
      rule.branches = branches;
      this.unions.push({ rule, where });
      return;
    }
    const byTag = new Map<string, Rule>();
    branches.forEach((branch, i) => {
      for (const tag of tagValues(this.resolve(union[i]!), property)) byTag.set(tag, branch);
    });
    rule.tagged = { property, branches: byTag };
  }

  private resolve(schema: Schema): Schema {
    return followReferences(this.document, schema);
  }
}

/**
 * The value without what the contract does not list. An object that loses properties is
 * replaced by a copy of the rest rather than changed with `delete`, which would turn it
 * into a slow dictionary object for the validator and the serialiser that follow.
 */
function pruneValue(rule: Rule, value: unknown, path: string, removed: string[]): unknown {
  if (rule.tagged) {
    if (!isPlainObject(value)) return value;
    const tag = value[rule.tagged.property];
    const branch = typeof tag === 'string' ? rule.tagged.branches.get(tag) : undefined;
    if (branch?.reachesClosed) value = pruneValue(branch, value, path, removed);
  } else if (rule.branches.length > 0) {
    const branch = onlyBranchFor(rule.branches, value);
    if (branch?.reachesClosed) value = pruneValue(branch, value, path, removed);
  }
  if (Array.isArray(value)) {
    const items = rule.items;
    if (items?.reachesClosed) for (let i = 0; i < value.length; i++) value[i] = pruneValue(items, value[i], `${path}[]`, removed);
    return value;
  }
  if (!isPlainObject(value)) return value;
  if (rule.listed === undefined && !rule.otherProperties?.reachesClosed && !hasReachingProperty(rule)) return value;
  const names = Object.keys(value);
  let kept: Record<string, unknown> | undefined;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const child =
      rule.properties.get(name) ??
      (rule.listed === undefined || rule.patterns.some((pattern) => pattern.test(name)) ? (rule.otherProperties ?? OPEN) : undefined);
    if (child === undefined) {
      removed.push(joinPath(path, name));
      if (!kept) {
        kept = {};
        for (let j = 0; j < i; j++) kept[names[j]!] = value[names[j]!];
      }
      continue;
    }
    const next = child.reachesClosed ? pruneValue(child, value[name], joinPath(path, name), removed) : value[name];
    if (kept) kept[name] = next;
    else if (next !== value[name]) value[name] = next;
  }
  return kept ?? value;
}

function hasReachingProperty(rule: Rule): boolean {
  for (const child of rule.properties.values()) if (child.reachesClosed) return true;
  return false;
}

/** The one branch admitting the value's JSON type, or undefined when none or several do. */
function onlyBranchFor(branches: readonly Rule[], value: unknown): Rule | undefined {
  const type = jsonTypeOf(value);
  let found: Rule | undefined;
  for (const branch of branches) {
    if (!admits(branch, type)) continue;
    if (found) return undefined;
    found = branch;
  }
  return found;
}

function hasAmbiguousBranches(rule: Rule): boolean {
  const types: JsonType[] = ['object', 'array', 'string', 'number', 'boolean', 'null'];
  return types.some((type) => {
    const admitting = rule.branches.filter((branch) => admits(branch, type));
    return admitting.length > 1 && admitting.some((branch) => branch.reachesClosed);
  });
}

function admits(rule: Rule, type: JsonType): boolean {
  if (rule.types === undefined) return true;
  return rule.types.has(type) || (type === 'number' && rule.types.has('integer'));
}

function childrenOf(rule: Rule): Rule[] {
  const children = [...rule.properties.values(), ...rule.branches];
  if (rule.otherProperties) children.push(rule.otherProperties);
  if (rule.items) children.push(rule.items);
  if (rule.tagged) children.push(...rule.tagged.branches.values());
  return children;
}

/** The JSON types a schema states; a discriminated union is made of objects. */
function typesOf(schema: Schema): ReadonlySet<JsonType> | undefined {
  const type = schema['type'];
  if (typeof type === 'string') return new Set([type as JsonType]);
  if (Array.isArray(type)) return new Set(type as JsonType[]);
  if (isSchema(schema['discriminator'])) return new Set(['object']);
  if ('const' in schema) return new Set([jsonTypeOf(schema['const'])]);
  return undefined;
}

/** The values a branch's tag property may take (`const` or `enum`). */
function tagValues(branch: Schema, property: string): string[] {
  const properties = branch['properties'];
  const tag = isSchema(properties) ? properties[property] : undefined;
  if (!isSchema(tag)) return [];
  if (typeof tag['const'] === 'string') return [tag['const']];
  return Array.isArray(tag['enum']) ? tag['enum'].filter((value): value is string => typeof value === 'string') : [];
}

function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' ? type : 'object';
}

function joinPath(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

function schemaList(value: unknown): Schema[] {
  return Array.isArray(value) ? value.filter(isSchema) : [];
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
