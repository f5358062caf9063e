/** The `code` of a Node system error (ENOENT, EACCES...), if the value carries one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
