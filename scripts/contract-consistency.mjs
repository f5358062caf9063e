// The contract checked against itself before anything is generated from it: every value the
// document states (a schema's `default`, `const` and `examples`, a parameter's or a media
// type's `example` and `examples`) must be accepted by the schema it belongs to, every
// property a schema requires must be defined, and every `$ref` must lead somewhere. Lowering
// a maximum below its own default passes the lint and the typecheck and then rejects every
// request that leaves the parameter out; this is where such an edit is refused.
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const DOCUMENT_ID = 'urn:agent-server:openapi-consistency';

/** Keywords whose value is one schema, a list of schemas, or a map of names to schemas. */
const ONE_SCHEMA = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** RFC 6901: one reference token. */
function token(key) {
  return String(key).replaceAll('~', '~0').replaceAll('/', '~1');
}

/** A JSON pointer as a URI fragment, the form Ajv resolves. */
function fragment(pointer) {
  return pointer
    .split('/')
    .map((part) => encodeURIComponent(part))
    .join('/');
}

function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object a local `$ref` names, or undefined when it names nothing. */
function resolve(document, ref) {
  if (!ref.startsWith('#')) return undefined;
  let current = document;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isObject(current) && !Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/**
 * Every problem of `document` with itself, each `{ pointer, rule, message }`: `pointer` is the
 * JSON pointer of the offending value, `rule` the schema keyword (or `$ref`, `required`) it breaks.
 */
export function contractConsistencyProblems(document) {
  const problems = [];
  const refs = [];
  collectRefs(document, '', refs);
  for (const { pointer, ref } of refs) {
    if (resolve(document, ref) === undefined)
      problems.push({ pointer: `${pointer}/$ref`, rule: '$ref', message: `$ref ${JSON.stringify(ref)} points at nothing` });
  }
  // Ajv cannot compile a document with a dangling reference; the references are the first thing to fix.
  if (problems.length > 0) return problems;

  const ajv = new Ajv2020.default({ strict: false, allErrors: true, validateSchema: false });
  addFormats.default(ajv);
  ajv.addSchema(document, DOCUMENT_ID);
  const validatorAt = (pointer) => ajv.getSchema(`${DOCUMENT_ID}#${fragment(pointer)}`);

  const checkValue = (schemaPointer, valuePointer, value, what) => {
    const validate = validatorAt(schemaPointer);
    if (!validate) throw new Error(`no schema at ${schemaPointer}`);
    if (validate(value)) return;
    for (const error of validate.errors ?? []) {
      // The `$ref`s and unions a value passes through each repeat the failure of the branch below them.
      if (['anyOf', 'oneOf', 'if'].includes(error.keyword) && (validate.errors?.length ?? 0) > 1) continue;
      const at = error.instancePath === '' ? '' : ` at ${error.instancePath}`;
      problems.push({
        pointer: valuePointer,
        rule: error.keyword,
        message: `${what} ${JSON.stringify(value)} breaks its own schema${at}: ${error.message} (${error.keyword})`,
      });
    }
  };

  const visitSchema = (schema, pointer) => {
    if (!isObject(schema)) return;
    if ('default' in schema) checkValue(pointer, `${pointer}/default`, schema.default, 'the default');
    // The whole schema judges its `const`: the keyword accepts itself, its siblings (type, pattern, enum) may not.
    if ('const' in schema) checkValue(pointer, `${pointer}/const`, schema.const, 'the const');
    if ('example' in schema) checkValue(pointer, `${pointer}/example`, schema.example, 'the example');
    if (Array.isArray(schema.examples))
      schema.examples.forEach((example, index) => {
        checkValue(pointer, `${pointer}/examples/${index}`, example, 'the example');
      });
    checkRequired(document, schema, pointer, problems);
    for (const keyword of ONE_SCHEMA) if (isObject(schema[keyword])) visitSchema(schema[keyword], `${pointer}/${keyword}`);
    for (const keyword of SCHEMA_LISTS)
      if (Array.isArray(schema[keyword]))
        schema[keyword].forEach((member, index) => {
          visitSchema(member, `${pointer}/${keyword}/${index}`);
        });
    for (const keyword of SCHEMA_MAPS)
      if (isObject(schema[keyword]))
        for (const [name, member] of Object.entries(schema[keyword])) visitSchema(member, `${pointer}/${keyword}/${token(name)}`);
  };

  /** A parameter, header or media type: its `example(s)` belong to its `schema`. */
  const visitHolder = (holder, pointer) => {
    if (!isObject(holder) || typeof holder.$ref === 'string') return;
    if (isObject(holder.schema)) {
      visitSchema(holder.schema, `${pointer}/schema`);
      if ('example' in holder) checkValue(`${pointer}/schema`, `${pointer}/example`, holder.example, 'the example');
      if (isObject(holder.examples))
        for (const [name, example] of Object.entries(holder.examples)) {
          const resolved = isObject(example) && typeof example.$ref === 'string' ? resolve(document, example.$ref) : example;
          if (isObject(resolved) && 'value' in resolved)
            checkValue(`${pointer}/schema`, `${pointer}/examples/${token(name)}/value`, resolved.value, `the example ${JSON.stringify(name)}`);
        }
    }
    if (isObject(holder.content))
      for (const [mediaType, media] of Object.entries(holder.content)) visitHolder(media, `${pointer}/content/${token(mediaType)}`);
    if (isObject(holder.headers))
      for (const [name, header] of Object.entries(holder.headers)) visitHolder(header, `${pointer}/headers/${token(name)}`);
  };

  const components = isObject(document.components) ? document.components : {};
  for (const [name, schema] of Object.entries(components.schemas ?? {})) visitSchema(schema, `/components/schemas/${token(name)}`);
  for (const kind of ['parameters', 'headers', 'responses', 'requestBodies'])
    for (const [name, holder] of Object.entries(components[kind] ?? {})) visitHolder(holder, `/components/${kind}/${token(name)}`);
  for (const [path, item] of Object.entries(isObject(document.paths) ? document.paths : {})) {
    const itemPointer = `/paths/${token(path)}`;
    (item.parameters ?? []).forEach((parameter, index) => {
      visitHolder(parameter, `${itemPointer}/parameters/${index}`);
    });
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const at = `${itemPointer}/${method}`;
      (operation.parameters ?? []).forEach((parameter, index) => {
        visitHolder(parameter, `${at}/parameters/${index}`);
      });
      if (isObject(operation.requestBody)) visitHolder(operation.requestBody, `${at}/requestBody`);
      for (const [status, response] of Object.entries(operation.responses ?? {})) visitHolder(response, `${at}/responses/${token(status)}`);
    }
  }
  return dedupe(problems);
}

/** A name in `required` must be defined in `properties`, here or in an `allOf` member, unless any other property is allowed. */
function checkRequired(document, schema, pointer, problems) {
  if (!Array.isArray(schema.required) || !isObject(schema.properties)) return;
  const defined = new Set(Object.keys(schema.properties));
  for (const member of schema.allOf ?? []) {
    const resolved = isObject(member) && typeof member.$ref === 'string' ? resolve(document, member.$ref) : member;
    if (isObject(resolved?.properties)) for (const name of Object.keys(resolved.properties)) defined.add(name);
  }
  schema.required.forEach((name, index) => {
    if (!defined.has(name))
      problems.push({
        pointer: `${pointer}/required/${index}`,
        rule: 'required',
        message: `the required property ${JSON.stringify(name)} is not defined in ${pointer}/properties`,
      });
  });
}

function collectRefs(node, pointer, refs) {
  if (Array.isArray(node))
    node.forEach((item, index) => {
      collectRefs(item, `${pointer}/${index}`, refs);
    });
  else if (isObject(node)) {
    if (typeof node.$ref === 'string') refs.push({ pointer, ref: node.$ref });
    for (const [key, value] of Object.entries(node)) collectRefs(value, `${pointer}/${token(key)}`, refs);
  }
}

/** YAML anchors put one object in several places; each place is its own problem, but one message once per place. */
function dedupe(problems) {
  const seen = new Set();
  return problems.filter((problem) => {
    const key = `${problem.pointer}\n${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The problems as a message that says what to do. */
export function renderConsistencyProblems(problems, file = 'openapi.yaml') {
  const lines = problems.map((problem) => `  #${problem.pointer} [${problem.rule}]: ${problem.message}`);
  return `${file} is at odds with itself (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${lines.join('\n')}\nFix the value or its schema so they agree (a lowered maximum needs its default lowered too), then run \`npm run generate\` again.`;
}
