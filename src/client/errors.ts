import type { ValidationError } from '../contract/types';

/** What a failed request said: the status and the body's `detail` when it has one. */
export class AgentServerError extends Error {
  override readonly name = 'AgentServerError';

  constructor(
    readonly status: number,
    readonly detail: string | ValidationError[] | undefined,
    readonly url: string,
  ) {
    super(`${status} from ${url}: ${describeDetail(detail)}`);
  }

  /** The validation errors of a 422, empty for any other status. */
  get validationErrors(): ValidationError[] {
    return Array.isArray(this.detail) ? this.detail : [];
  }
}

/** The server broke the paging protocol, for example by handing out a cursor twice. */
export class PagingError extends Error {
  override readonly name = 'PagingError';
}

function describeDetail(detail: AgentServerError['detail']): string {
  if (detail === undefined) return 'no detail';
  if (typeof detail === 'string') return detail;
  return detail.map((item) => `${item.loc.join('.')}: ${item.msg}`).join('; ');
}

/** Reads `detail` from an error body of any shape without trusting it. */
export function detailOf(body: unknown): AgentServerError['detail'] {
  if (typeof body !== 'object' || body === null || !('detail' in body)) return undefined;
  const detail = (body as { detail: unknown }).detail;
  if (typeof detail === 'string' || Array.isArray(detail)) return detail as AgentServerError['detail'];
  return undefined;
}
