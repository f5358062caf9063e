/**
 * The shape of a handler, derived from the contract's generated `operations`: what it is
 * given (the path and query parameters and the body, typed as the contract declares them, after
 * validation) and what it may answer (one of the operation's declared responses, with that
 * status's body). `OperationHandlers` has one key per operationId, so an operation added to
 * openapi.yaml without a handler, or a handler left for an operation that is gone, fails
 * to compile and the error names the operationId.
 */
import type { OperationId, ValidationError, operations } from '../contract';
import type { ParsedValues } from './parsed-values';

type ParametersOf<Op extends OperationId> = operations[Op]['parameters'];
type ResponsesOf<Op extends OperationId> = operations[Op]['responses'];
// A response with any media type besides JSON is a file (the export also offers JSON files).
type JsonBodyOf<Response> = Response extends { content: infer Content }
  ? [Exclude<keyof Content, 'application/json'>] extends [never]
    ? Content extends { 'application/json': infer Body }
      ? Body
      : never
    : StreamedFile
  : never;
type RequestBodyOf<Op extends OperationId> = operations[Op] extends { requestBody: { content: { 'application/json': infer Body } } }
  ? Body
  : undefined;
type Present<T> = [NonNullable<T>] extends [never] ? Record<string, never> : NonNullable<T>;

export interface OperationInput<Op extends OperationId> {
  path: Present<ParametersOf<Op>['path']>;
  query: Present<ParametersOf<Op>['query']>;
  /** The ids and timestamps among them, as read once on the request path (parsed-values.ts). */
  parsed: ParsedValues;
  /**
   * The request body as the contract declares it, or pydantic's items saying why it is not
   * (request-body.ts): the handler answers them once it has checked what the reference checks first.
   */
  body: { ok: true; value: RequestBodyOf<Op> } | { ok: false; problems: ValidationError[] };
}

/** The body of one declared response of an operation. */
export type ResponseBody<Op extends OperationId, Status extends keyof ResponsesOf<Op>> = JsonBodyOf<ResponsesOf<Op>[Status]>;

/**
 * JSON text that is already written, such as an event's stored bytes, standing for a value
 * of type `T`: the server sends the bytes as they are instead of serialising a value.
 */
export class SerializedJson<T> {
  /** Never set: it only carries `T`, so bytes standing for one type are not accepted as another. */
  declare readonly value?: T;

  constructor(readonly parts: readonly Buffer[]) {}
}

/**
 * A response that is a file rather than JSON (a declared response whose media types are
 * not `application/json`: the export, the trajectory zip): sent as an attachment, its
 * chunks written as they come, each after the previous one has drained, so a file of any
 * size passes in bounded memory.
 */
export class StreamedFile {
  constructor(
    readonly contentType: string,
    readonly fileName: string,
    readonly chunks: AsyncIterable<Buffer>,
  ) {}
}

/** One of the operation's declared responses: its status and a body of that status's type. */
export type OperationResult<Op extends OperationId> = {
  [Status in keyof ResponsesOf<Op>]: {
    status: Status;
    body: ResponseBody<Op, Status> | SerializedJson<ResponseBody<Op, Status>>;
  };
}[keyof ResponsesOf<Op>];

export type OperationHandler<Op extends OperationId> = (input: OperationInput<Op>) => Promise<OperationResult<Op>>;

/** One handler for every operation of the contract, keyed by operationId. */
export type OperationHandlers = { [Op in OperationId]: OperationHandler<Op> };
