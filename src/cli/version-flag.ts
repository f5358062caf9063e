/** True when `--version` is among the arguments: every bin answers it before parsing anything else. */
export function asksForVersion(argv: readonly string[]): boolean {
  return argv.includes('--version');
}
