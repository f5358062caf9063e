/**
 * The contract's `Event` schema as a compiled Ajv function, built once on first use.
 *
 * Ajv's `discriminator` option refuses a `mapping`; ours only restates what every branch
 * already says (mapping keys are the `kind` values, REFERENCE.md section 6), so the
 * mappings are dropped and Ajv picks the branch from each branch's `kind` enum (see
 * adaptDiscriminators). Picking the branch first makes a failure report the branch's own
 * error ("must NOT have additional properties") instead of one error per kind, and is
 * faster than trying all fourteen.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { loadOpenApiDocument } from '../contract';

const DOCUMENT_ID = 'urn:agent-server:openapi';
const EVENT_SCHEMA_REF = `${DOCUMENT_ID}#/components/schemas/Event`;
const MAX_DETAIL_CHARS = 120;

let compiled: ValidateFunction | undefined;

/**
 * Checks a parsed value against the contract's `Event`. Returns undefined when it
 * matches, and otherwise a short reason built from the first error: the instance path
 * and Ajv's message, which name the schema's expectations and never the event's values.
 */
export function eventContractViolation(value: unknown): string | undefined {
  compiled ??= compileEventValidator();
  if (compiled(value)) return undefined;
  const first = compiled.errors?.[0];
  return first ? describeError(first) : 'does not match the contract';
}

/** Compiles the validator now (a few hundred milliseconds), so the first event does not wait for it. */
export function warmEventValidator(): void {
  compiled ??= compileEventValidator();
}

function compileEventValidator(): ValidateFunction {
  const document = loadOpenApiDocument();
  adaptDiscriminators(document);
  // strict: false lets OpenAPI's own keywords (example, xml...) pass as annotations.
  // validateSchema: false skips checking our own document against the JSON Schema
  // meta-schema (a fifth of the compile time; `npm run lint:spec` checks the document).
  const ajv = new Ajv2020({ strict: false, discriminator: true, allErrors: false, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const validate = ajv.getSchema(EVENT_SCHEMA_REF);
  if (!validate) throw new Error(`The contract has no schema at ${EVENT_SCHEMA_REF}`);
  return validate;
}

/**
 * Adapts the document to Ajv's discriminator support: drops each `mapping`, and states
 * `type: object` on each discriminated union. Ajv's discriminator keyword applies only to
 * objects and replaces the `oneOf` check, so without the type a string, an array or null
 * would pass where every branch demands an object.
 */
function adaptDiscriminators(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(adaptDiscriminators);
  } else if (node !== null && typeof node === 'object') {
    const schema = node as { discriminator?: { propertyName?: unknown; mapping?: unknown }; type?: unknown };
    if (typeof schema.discriminator?.propertyName === 'string') {
      delete schema.discriminator.mapping;
      schema.type ??= 'object';
    }
    Object.values(node).forEach(adaptDiscriminators);
  }
}

function describeError(error: ErrorObject): string {
  const where = clip(error.instancePath || '/');
  // The unknown property's name is the actionable part (a newer server's `parent_id`);
  // it is a key, not a value, so it carries no event content.
  const property = error.keyword === 'additionalProperties' ? ` (${clip(String(error.params['additionalProperty']))})` : '';
  return `does not match the contract at ${where}: ${error.message ?? error.keyword}${property}`;
}

function clip(text: string): string {
  return text.length <= MAX_DETAIL_CHARS ? text : `${text.slice(0, MAX_DETAIL_CHARS)}...`;
}
