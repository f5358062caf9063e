/**
 * The lower-cased text a `body` filter searches in a message event, as docs/reference-behaviour.md,
 * "Search", describes it, read from the raw JSON a server sent (never trusted to have the
 * contract's shape). The kit's own, apart from src/search, so the two cannot share a bug.
 */
export function searchableTextOf(item: Record<string, unknown>): string | undefined {
  if (item['kind'] !== 'MessageEvent') return undefined;
  const message = item['llm_message'];
  if (!isRecord(message)) return undefined;
  const content = Array.isArray(message['content']) ? message['content'] : [];
  const extended = Array.isArray(item['extended_content']) ? item['extended_content'] : [];
  const reasoning = typeof message['reasoning_content'] === 'string' ? [message['reasoning_content']] : [];
  const pieces = [
    ...content.map(partText),
    ...extended.map((part) => (isRecord(part) && typeof part['text'] === 'string' ? part['text'] : '')),
    ...reasoning,
  ];
  return pieces.join(' ').toLowerCase();
}

/** A text part gives its text; any other part (an image) stands as `[Image: N URLs]`. */
function partText(part: unknown): string {
  if (!isRecord(part)) return '';
  const isText = part['type'] === 'text' || (part['type'] === undefined && typeof part['text'] === 'string');
  if (isText && typeof part['text'] === 'string') return part['text'];
  const urls = Array.isArray(part['image_urls']) ? part['image_urls'].length : 0;
  return `[Image: ${urls} URLs]`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
