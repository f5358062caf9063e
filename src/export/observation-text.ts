/**
 * How an observation reads for a person, shared by the Markdown export and the viewer (which
 * bundles it for the browser, so nothing here may touch Node).
 */

/** The text parts of the observation's content, joined by lines; undefined when it has none. */
export function observationText(observation: Record<string, unknown>): string | undefined {
  const content = observation['content'];
  if (!Array.isArray(content)) return undefined;
  const texts = content.flatMap((part: unknown) =>
    typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string' ? [(part as { text: string }).text] : [],
  );
  return texts.length > 0 ? texts.join('\n') : undefined;
}

/** The observation without its `kind`, for showing the rest as JSON when it has no text. */
export function withoutKind(observation: Record<string, unknown>): Record<string, unknown> {
  const { kind: _kind, ...rest } = observation;
  return rest;
}
