/**
 * The request's ids and timestamps, parsed once. The parameters the contract gives a
 * `uuid` or `date-time` format are read with pydantic's rules (src/request-value) right after the request is matched to its operation, and that
 * one reading serves all three that need it: the check that rejects a bad value (the
 * validator is handed these parameters without their format, see request-validation.ts),
 * the handler (the store's conversation key, the filter's instants) and the 422's message.
 */
import type { Request, RequestHandler } from 'express';
import { type TimestampParse, type UuidParse, parseFilterTimestamp, parseUuid } from '../request-value';
import type { ParameterSpec } from './parameters';
import { matchedRequest } from './request-validation';

export type ValueParse = UuidParse | TimestampParse;

const PARSERS: Record<string, (raw: string) => ValueParse> = {
  uuid: (raw) => parseUuid(raw),
  'date-time': (raw) => parseFilterTimestamp(raw),
};

/** Whether the parameter's format is one parsed here, and so left out of the validator's copy of the contract. */
export function isParsedHere(parameter: ParameterSpec): boolean {
  return parameter.schema.format !== undefined && Object.hasOwn(PARSERS, parameter.schema.format);
}

export class ParsedValues {
  private readonly parses = new Map<string, ValueParse>();

  /** Parses `raw` with the parser of `format`; a format not parsed here is ignored. */
  parse(name: string, format: string | undefined, raw: string): void {
    const parser = format !== undefined && Object.hasOwn(PARSERS, format) ? PARSERS[format] : undefined;
    if (parser) this.parses.set(name, parser(raw));
  }

  /** The reading of one parameter, when it was sent and has a format parsed here. */
  readingOf(name: string): ValueParse | undefined {
    return this.parses.get(name);
  }

  /** Names of the parameters whose values do not parse. */
  failing(): string[] {
    return [...this.parses].filter(([, parse]) => !parse.ok).map(([name]) => name);
  }

  /** The 32 lower-case hex digits of a uuid parameter that passed validation. */
  uuidHex(name: string): string {
    const parse = this.parses.get(name);
    if (!parse?.ok || !('hex' in parse)) throw new Error(`${name} passed validation but was not read as a uuid`);
    return parse.hex;
  }

  /** Microseconds of a date-time parameter that passed validation; undefined when it was not sent. */
  instant(name: string): number | undefined {
    const parse = this.parses.get(name);
    if (parse === undefined) return undefined;
    if (!parse.ok || !('micros' in parse)) throw new Error(`${name} passed validation but was not read as a date-time`);
    return parse.micros;
  }
}

const PARSED = Symbol('parsedValues');

/** What parseRequestValues found, for the handler and the error path. */
export function parsedValues(req: Request): ParsedValues | undefined {
  return (req as Request & { [PARSED]?: ParsedValues })[PARSED];
}

/**
 * Runs after the query normalisation (which matched the operation) and before the
 * validator: reads each path and query parameter of the operation that has a uuid or
 * date-time format. A path whose escapes do not decode is left to the validator, which
 * rejects it before it looks at any parameter (errors.ts answers that case).
 */
export function parseRequestValues(): RequestHandler {
  return (req, _res, next) => {
    const matched = matchedRequest(req);
    if (!matched) return next();
    const parsed = new ParsedValues();
    const { route, segments } = matched;
    const pathValues = new Map<string, string>();
    for (const [i, segment] of segments.entries()) {
      const decoded = decodedOrUndefined(segment);
      if (decoded === undefined) return next();
      pathValues.set(route.pathParameterNames[i] ?? '', decoded);
    }
    const query = req.query as Record<string, unknown>;
    for (const parameter of route.parameters) {
      if (!isParsedHere(parameter)) continue;
      const raw = parameter.in === 'path' ? pathValues.get(parameter.name) : query[parameter.name];
      if (typeof raw === 'string') parsed.parse(parameter.name, parameter.schema.format, raw);
    }
    (req as Request & { [PARSED]?: ParsedValues })[PARSED] = parsed;
    next();
  };
}

/**
 * After the validator passed the request: a value that did not parse fails it as the
 * validator would have, so the error path answers with one 422 for every failing parameter.
 */
export function rejectUnparsedValues(): RequestHandler {
  return (req, _res, next) => {
    const failing = parsedValues(req)?.failing() ?? [];
    if (failing.length === 0) return next();
    next(Object.assign(new Error('request parameters do not parse'), { status: 400, errors: failing.map((name) => ({ path: `/parsed/${name}` })) }));
  };
}

function decodedOrUndefined(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
