/**
 * A statement and its bound values, written once for both databases: placeholders come
 * from the dialect (dialect.ts), so no value is ever spliced into SQL text.
 */
import type { SqlDialect } from './dialect';

export interface Statement {
  text: string;
  values: unknown[];
}

/** Collects bound values and hands out their placeholders, typed as each dialect needs. */
export class Parameters {
  readonly values: unknown[] = [];

  constructor(readonly dialect: SqlDialect) {}

  /** A text or small integer value. */
  add(value: unknown): string {
    this.values.push(value);
    return this.dialect.placeholder(this.values.length);
  }

  /** A 64-bit integer given as decimal text (sort keys reach the whole range). */
  bigint(decimal: string): string {
    this.values.push(this.dialect.bigintValue(decimal));
    return this.dialect.bigintPlaceholder(this.values.length);
  }

  /** Text given as its UTF-8 bytes. */
  utf8Text(bytes: Buffer): string {
    this.values.push(bytes);
    return this.dialect.utf8TextPlaceholder(this.values.length);
  }

  /** A conversation id as 32 hex digits, compared with the conversation column of events. */
  conversationUuid(hex: string): string {
    this.values.push(hex);
    return this.dialect.uuidPlaceholder(this.values.length);
  }

  /** A list of text values, for `column IN (...)`. */
  textList(column: string, values: readonly string[]): string {
    this.values.push(this.dialect.listValue(values));
    return this.dialect.inList(column, this.values.length);
  }
}
