/**
 * JSON text written without recursion, so a value nested any number of levels deep (a hostile
 * file can nest thousands) is written instead of overflowing the stack as `JSON.stringify`
 * does. Three layouts: compact (as `JSON.stringify`), indented (as `JSON.stringify(v, null, n)`)
 * and Python's default `json.dumps` (`", "` and `": "`, non-ASCII escaped), which the
 * reference writes when it rewrites a file it redacted.
 */

export interface JsonLayout {
  /** Spaces per level; 0 writes everything on one line. */
  indent: number;
  /** Written after a comma and after a colon when `indent` is 0 (`' '` for Python's layout). */
  gap: string;
  /** Characters above U+007E written as `\uXXXX`, as Python's `ensure_ascii`. */
  asciiOnly: boolean;
}

export const COMPACT: JsonLayout = { indent: 0, gap: '', asciiOnly: false };
export const INDENTED: JsonLayout = { indent: 2, gap: '', asciiOnly: false };
export const PYTHON_DUMPS: JsonLayout = { indent: 0, gap: ' ', asciiOnly: true };

const MAX_INDENTED_DEPTH = 32;

type Frame = { close: string; depth: number } | { value: unknown; depth: number; key?: string; first: boolean };

/**
 * The JSON text of `value` (plain data: objects, arrays, strings, finite numbers, booleans,
 * null; `undefined` members are left out, as `JSON.stringify` leaves them out).
 */
export function jsonText(value: unknown, layout: JsonLayout = COMPACT): string {
  const out: string[] = [];
  const stack: Frame[] = [{ value, depth: 0, first: true }];
  // Indentation stops growing past a depth: text nested thousands deep would otherwise grow with the square of its depth.
  const newline = (depth: number) => (layout.indent > 0 ? `\n${' '.repeat(layout.indent * Math.min(depth, MAX_INDENTED_DEPTH))}` : '');
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if ('close' in frame) {
      out.push(frame.close);
      continue;
    }
    if (frame.depth > 0) {
      if (!frame.first) out.push(layout.indent > 0 ? ',' : `,${layout.gap}`);
      out.push(newline(frame.depth));
    }
    if (frame.key !== undefined) out.push(`${quoted(frame.key, layout.asciiOnly)}:${layout.indent > 0 || layout.gap ? ' ' : ''}`);
    const item = frame.value;
    if (Array.isArray(item)) {
      if (item.length === 0) {
        out.push('[]');
        continue;
      }
      out.push('[');
      stack.push({ close: `${newline(frame.depth)}]`, depth: frame.depth });
      for (let i = item.length - 1; i >= 0; i--)
        stack.push({ value: item[i] === undefined ? null : item[i], depth: frame.depth + 1, first: i === 0 });
    } else if (typeof item === 'object' && item !== null) {
      const entries = Object.entries(item).filter(([, member]) => member !== undefined);
      if (entries.length === 0) {
        out.push('{}');
        continue;
      }
      out.push('{');
      stack.push({ close: `${newline(frame.depth)}}`, depth: frame.depth });
      for (let i = entries.length - 1; i >= 0; i--)
        stack.push({ value: entries[i]![1], key: entries[i]![0], depth: frame.depth + 1, first: i === 0 });
    } else if (typeof item === 'string') out.push(quoted(item, layout.asciiOnly));
    else if (typeof item === 'number') out.push(Number.isFinite(item) ? String(item) : 'null');
    else if (typeof item === 'boolean') out.push(item ? 'true' : 'false');
    else out.push('null');
  }
  return out.join('');
}

function quoted(text: string, asciiOnly: boolean): string {
  const json = JSON.stringify(text);
  return asciiOnly ? json.replace(/[\u007f-\uffff]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`) : json;
}
