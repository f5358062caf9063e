/**
 * HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), the format browsers' developer
 * tools save traffic in: what `proxy --record` writes and `--replay` reads. Writing masks the
 * secrets a header or a query may carry, the SDK's secret fields in a JSON body or line, and
 * credential-shaped text (the one secret policy, src/secrets: a server under test may answer
 * with a key in clear), and leaves out bodies that are not text; reading says which entry is
 * wrong and why.
 */
import { createWriteStream, readFileSync } from 'node:fs';
import { packageVersion } from '../package-info';
import { MASKED_SECRET, isCredentialHeader, isCredentialQueryParameter, maskCredentialText, maskedJson } from '../secrets';

export interface HarHeader {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: unknown[];
    headers: HarHeader[];
    queryString: HarHeader[];
    postData?: { mimeType: string; text: string };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: unknown[];
    headers: HarHeader[];
    content: { size: number; mimeType: string; text?: string; comment?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
}

/** The file's shape, as `recordHar` writes it. */
export interface HarLog {
  log: { version: '1.2'; creator: { name: string; version: string }; entries: HarEntry[] };
}

/** What stands for a credential's value in a recording: the secret policy's mask (src/secrets). */
export const MASKED = MASKED_SECRET;

export function maskHeaders(headers: readonly HarHeader[]): HarHeader[] {
  return headers.map((header) => (isCredentialHeader(header.name) ? { name: header.name, value: MASKED } : header));
}

/** A path and query with the secret query values masked. */
export function maskTarget(target: string): string {
  const url = new URL(target, 'http://har.invalid');
  let masked = false;
  for (const name of [...url.searchParams.keys()])
    if (isCredentialQueryParameter(name)) {
      url.searchParams.set(name, MASKED);
      masked = true;
    }
  return masked ? `${url.pathname}${url.search}` : target;
}

/** Headers as HAR lists them, from Node's raw `[name, value, name, value, ...]`. */
export function harHeaders(raw: readonly string[]): HarHeader[] {
  const headers: HarHeader[] = [];
  for (let index = 0; index + 1 < raw.length; index += 2) headers.push({ name: raw[index]!, value: raw[index + 1]! });
  return maskHeaders(headers);
}

export interface RecordedExchange {
  startedAt: number;
  durationMs: number;
  method: string;
  /** The URL the request was forwarded to. */
  url: string;
  httpVersion: string;
  requestHeaders: readonly string[];
  requestBody: Buffer | undefined;
  status: number;
  statusText: string;
  responseHeaders: readonly string[];
  responseBody: Buffer | undefined;
  /** The response's length when its body was too large to keep. */
  responseSize: number;
}

/** One exchange as a HAR entry, secrets masked. */
export function harEntry(exchange: RecordedExchange): HarEntry {
  const url = new URL(exchange.url);
  const masked = new URL(maskTarget(`${url.pathname}${url.search}`), url.origin);
  const requestHeaders = harHeaders(exchange.requestHeaders);
  const responseHeaders = harHeaders(exchange.responseHeaders);
  const headerValue = (headers: HarHeader[], name: string) => headers.find((header) => header.name.toLowerCase() === name)?.value;
  const requestType = headerValue(requestHeaders, 'content-type') ?? 'application/octet-stream';
  return {
    startedDateTime: new Date(exchange.startedAt).toISOString(),
    time: exchange.durationMs,
    request: {
      method: exchange.method,
      url: masked.href,
      httpVersion: `HTTP/${exchange.httpVersion}`,
      cookies: [],
      headers: requestHeaders,
      queryString: [...masked.searchParams].map(([name, value]) => ({ name, value })),
      ...(exchange.requestBody && exchange.requestBody.length > 0
        ? { postData: { mimeType: requestType, text: exchange.requestBody.toString('utf8') } }
        : {}),
      headersSize: -1,
      bodySize: exchange.requestBody?.length ?? 0,
    },
    response: {
      status: exchange.status,
      statusText: exchange.statusText,
      httpVersion: `HTTP/${exchange.httpVersion}`,
      cookies: [],
      headers: responseHeaders,
      content: { size: exchange.responseSize, mimeType: headerValue(responseHeaders, 'content-type') ?? '', ...bodyContent(exchange.responseBody) },
      redirectURL: '',
      headersSize: -1,
      bodySize: exchange.responseSize,
    },
    cache: {},
    timings: { send: 0, wait: exchange.durationMs, receive: 0 },
  };
}

/**
 * A body as a recording keeps it: JSON, and each line of JSON lines, with the policy's fields
 * masked (the same bytes when there is nothing to mask); other text with credential-shaped runs
 * masked; bytes that are not text (an archive) are not kept, since what they hold cannot be
 * masked without rewriting them, and a replay compares only text.
 */
function bodyContent(recorded: Buffer | undefined): { text?: string; comment?: string } {
  if (recorded === undefined) return {};
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(recorded);
  } catch {
    return { comment: `${recorded.length} bytes that are not text, not kept: a recording masks secrets only in text` };
  }
  if (isJson(text)) return { text: maskedJson(recorded).toString('utf8') };
  return {
    text: text
      .split('\n')
      .map((line) => (isJson(line) ? maskedJson(Buffer.from(line, 'utf8')).toString('utf8') : maskCredentialText(line)))
      .join('\n'),
  };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const CREATOR = { name: 'agent-server-contract proxy', version: packageVersion() };

export interface HarRecorder {
  add(entry: HarEntry): void;
  readonly count: number;
  /** Ends the file's JSON; rejects when the file could not be written. */
  close(): Promise<void>;
}

/**
 * A HAR file written as the exchanges come, so a long session is not held in memory: the log's
 * opening at once, each entry when it is added, the closing brackets at `close`.
 */
export function recordHar(file: string): HarRecorder {
  const stream = createWriteStream(file);
  let failure: Error | undefined;
  stream.on('error', (error) => {
    failure = error;
  });
  stream.write(`{"log":{"version":"1.2","creator":${JSON.stringify(CREATOR)},"entries":[`);
  let count = 0;
  return {
    add(entry) {
      stream.write(`${count === 0 ? '' : ','}\n${JSON.stringify(entry)}`);
      count += 1;
    },
    get count() {
      return count;
    },
    close: () =>
      new Promise((resolve, reject) => {
        stream.end('\n]}}\n', () => (failure ? reject(failure) : resolve()));
        stream.once('error', reject);
      }),
  };
}

/** A recorded request as replay needs it. */
export interface ReplayEntry {
  /** 1-based, as a person counts the entries of the file. */
  index: number;
  method: string;
  /** Path and query, as recorded. */
  target: string;
  postData?: { mimeType: string; text: string };
  status: number;
  /** The recorded body's text; undefined when not recorded or not text. */
  body: string | undefined;
}

export type HarRead = { ok: true; entries: ReplayEntry[]; problems: string[] } | { ok: false; message: string };

/**
 * The entries of a HAR 1.2 file. The file as a whole must be HAR 1.2; an entry that lacks what
 * replay needs is left out and named in `problems`, so one bad entry does not stop the others.
 */
export function readHar(file: string): HarRead {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return {
      ok: false,
      message: `cannot read --replay ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); check the path`,
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      message: `--replay ${file} is not JSON (${(error as Error).message}); give a HAR 1.2 file, as \`proxy --record\` or a browser's "Save all as HAR" writes`,
    };
  }
  const log = (parsed as { log?: { version?: unknown; entries?: unknown } } | null)?.log;
  if (typeof log !== 'object' || log === null)
    return { ok: false, message: `--replay ${file} has no "log" object: it is not a HAR file; give a HAR 1.2 file, as \`proxy --record\` writes` };
  if (log.version !== '1.2')
    return {
      ok: false,
      message: `--replay ${file} is HAR ${JSON.stringify(log.version)}, not "1.2"; record it again with \`proxy --record\`, or save it as HAR 1.2`,
    };
  if (!Array.isArray(log.entries)) return { ok: false, message: `--replay ${file} has no "log.entries" list` };
  const entries: ReplayEntry[] = [];
  const problems: string[] = [];
  log.entries.forEach((raw: unknown, position: number) => {
    const index = position + 1;
    const entry = raw as {
      request?: { method?: unknown; url?: unknown; postData?: unknown };
      response?: { status?: unknown; content?: { text?: unknown; encoding?: unknown } };
    };
    const method = entry?.request?.method;
    const url = entry?.request?.url;
    const status = entry?.response?.status;
    if (typeof method !== 'string' || typeof url !== 'string') {
      problems.push(`entry ${index}: no request.method and request.url; skipped`);
      return;
    }
    let target: string;
    try {
      const parsedUrl = new URL(url, 'http://har.invalid');
      target = `${parsedUrl.pathname}${parsedUrl.search}`;
    } catch {
      problems.push(`entry ${index}: request.url ${JSON.stringify(url)} is not a URL; skipped`);
      return;
    }
    if (typeof status !== 'number' || !Number.isInteger(status)) {
      problems.push(`entry ${index} (${method} ${target}): no response.status to compare with; skipped`);
      return;
    }
    const content = entry.response?.content;
    const postData = entry.request?.postData as { mimeType?: unknown; text?: unknown } | undefined;
    entries.push({
      index,
      method: method.toUpperCase(),
      target,
      ...(postData && typeof postData.text === 'string' ? { postData: { mimeType: String(postData.mimeType ?? ''), text: postData.text } } : {}),
      status,
      body: typeof content?.text === 'string' && content.encoding === undefined ? content.text : undefined,
    });
  });
  return { ok: true, entries, problems };
}
