/**
 * The contract's JSON Schemas at run time, for the contract tests: generated/openapi.json
 * added to one Ajv 2020 instance under an `$id`, so that every schema is reached by a JSON
 * pointer into the document, exactly as the document's own `$ref`s reach it.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { SEARCH_PATH, loadOpenApiDocument, type OpenApiDocument } from '../../src/contract';

export const CONTRACT_SCHEMA_ID = 'https://agent-server.contract.test/openapi.json';

/**
 * Ajv runs in strict mode, so a misspelt JSON Schema keyword in openapi.yaml fails the
 * tests instead of being ignored. Strict mode also rejects every keyword it does not know,
 * and an OpenAPI document has some that are not JSON Schema. They are declared as
 * annotations (validation ignores them):
 * - the fields of the OpenAPI document object itself (`openapi`, `info`, `paths`, ...),
 *   because the whole document is added as one schema so that `#/components/...` resolves;
 * - the OpenAPI Schema Object's own keywords. `discriminator` is the one the contract uses.
 *   Ajv's `discriminator: true` option is not used: it refuses `mapping` ("mapping is not
 *   supported") and wants `type: object` beside every `oneOf`. It is not needed either:
 *   each member of Event, Action, Observation and ToolDefinition pins `kind` with a
 *   distinct `const`, so `oneOf` alone accepts exactly the member that `kind` names.
 * Formats are checked in ajv-formats' `full` mode (real calendar dates and times), not the
 * default `fast` mode, which accepts `2024-02-30`.
 */
const OPENAPI_DOCUMENT_FIELDS = [
  'openapi',
  'info',
  'jsonSchemaDialect',
  'servers',
  'paths',
  'webhooks',
  'components',
  'security',
  'tags',
  'externalDocs',
];
const OPENAPI_SCHEMA_KEYWORDS = ['discriminator', 'xml', 'example'];

/** Creates an Ajv instance holding the contract document; see the comment above for its options. */
export function createContractAjv(document: OpenApiDocument = loadOpenApiDocument()): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv, { mode: 'full' });
  ajv.addVocabulary([...OPENAPI_DOCUMENT_FIELDS, ...OPENAPI_SCHEMA_KEYWORDS]);
  ajv.addSchema(document, CONTRACT_SCHEMA_ID);
  return ajv;
}

/** The validator of the schema at a JSON pointer (such as `/components/schemas/Event`) of the document. */
export function validatorAt(ajv: Ajv2020, pointer: string): ValidateFunction {
  const validate = ajv.getSchema(`${CONTRACT_SCHEMA_ID}#${pointer}`);
  if (!validate) throw new Error(`the contract has no schema at ${pointer}`);
  return validate;
}

/** The validator of `#/components/schemas/<name>`. */
export function componentValidator(ajv: Ajv2020, name: string): ValidateFunction {
  return validatorAt(ajv, `/components/schemas/${name}`);
}

/** The validator of the schema of one parameter of the search operation, found by name. */
export function searchParameterValidator(ajv: Ajv2020, name: string, document: OpenApiDocument = loadOpenApiDocument()): ValidateFunction {
  const operation = document.paths[SEARCH_PATH]?.['get'] as { parameters: Array<{ name: string }> } | undefined;
  const index = operation?.parameters.findIndex((parameter) => parameter.name === name) ?? -1;
  if (index < 0) throw new Error(`the search operation has no parameter ${name}`);
  const escapedPath = SEARCH_PATH.replaceAll('~', '~0').replaceAll('/', '~1');
  return validatorAt(ajv, `/paths/${escapedPath}/get/parameters/${index}/schema`);
}

/** What an Ajv error says, without the parts that depend on how the schema was reached. */
export type ErrorSummary = Pick<ErrorObject, 'instancePath' | 'keyword' | 'params'>;

/** Validates and returns the errors in a form that tests compare whole. */
export function validationErrors(validate: ValidateFunction, value: unknown): ErrorSummary[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).map(({ instancePath, keyword, params }) => ({ instancePath, keyword, params }));
}
