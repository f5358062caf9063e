/**
 * A value of an enumeration as pydantic reads it from a string: exactly one of the members,
 * case and spaces counting; the error lists the members as pydantic words them.
 */
export type EnumParse<T extends string> = { ok: true; value: T } | { ok: false; message: string; expected: string };

export function parseEnum<T extends string>(members: readonly T[], raw: string): EnumParse<T> {
  if ((members as readonly string[]).includes(raw)) return { ok: true, value: raw as T };
  const expected = listInWords(members.map((member) => `'${member}'`));
  return { ok: false, message: `Input should be ${expected}`, expected };
}

function listInWords(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}
