/**
 * PostgreSQL text cannot hold U+0000, which JSON strings (`"\u0000"`) and query values
 * (`%00`) can. Every text the store writes or compares passes through here, both sides the
 * same way, so such values are stored and matched instead of failing the statement.
 * U+FFFF, a Unicode noncharacter, stands in; the two are not told apart.
 */
const NUL = /\u0000/g;

export function textColumn(value: string): string {
  return value.includes('\u0000') ? value.replace(NUL, '\uffff') : value;
}

export function nullableTextColumn(value: string | null): string | null {
  return value === null ? null : textColumn(value);
}
