/**
 * `agent-server-contract export --otlp-endpoint URL --base-url SERVER (--conversation ID | --all)`:
 * reads stored conversations from a running server over HTTP (their catalog entry and their
 * JSON lines export, streamed) and pushes each as one trace to an OTLP/HTTP collector, one
 * conversation after the other. Progress goes to stderr (one line redrawn on a terminal, a line
 * per conversation otherwise), the summary to stdout. Exit codes: 0 every trace was accepted,
 * 1 a conversation could not be read or a collector refused, 2 the command could not run.
 */
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { type AgentServerClient, createAgentServerClient } from '../../client';
import type { Event } from '../../contract';
import { PushError, pushConversationTrace, tracesUrl } from './otlp-push';

export const EXPORT_USAGE = `Usage: agent-server-contract export --otlp-endpoint URL --base-url SERVER (--conversation ID ... | --all) [options]

Pushes stored conversations, each as one OpenTelemetry trace (GenAI and OpenInference
attributes), to an OTLP/HTTP collector in protobuf: Arize Phoenix, Langfuse, an OpenTelemetry
Collector, any tool that takes OTLP.

  --otlp-endpoint URL       the collector, e.g. http://127.0.0.1:6006/v1/traces; a base URL gets /v1/traces
  --base-url SERVER         the agent server holding the conversations, e.g. http://127.0.0.1:8000
  --conversation ID         a conversation to push (repeat for several)
  --all                     every stored conversation
  --header NAME=VALUE       sent to the collector with every request (repeat), e.g. authorization
  --session-api-key KEY     sent to the server as X-Session-API-Key (or set SESSION_API_KEY)
  -h, --help                this text
`;

const EXIT_PUSHED = 0;
const EXIT_FAILED = 1;
const EXIT_CANNOT_RUN = 2;

export interface ExportIo {
  out(text: string): void;
  err(text: string): void;
  /** Whether stderr is a terminal, where progress is one line redrawn in place. */
  errIsTerminal: boolean;
  env: NodeJS.ProcessEnv;
}

export async function runExportCommand(args: readonly string[], io: ExportIo): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: [...args],
      options: {
        'otlp-endpoint': { type: 'string' },
        'base-url': { type: 'string' },
        conversation: { type: 'string', multiple: true },
        all: { type: 'boolean' },
        header: { type: 'string', multiple: true },
        'session-api-key': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    io.err(`export: ${(error as Error).message}\n\n${EXPORT_USAGE}`);
    return EXIT_CANNOT_RUN;
  }
  if (values.help) {
    io.out(EXPORT_USAGE);
    return EXIT_PUSHED;
  }
  const problem = flagProblem(values);
  if (problem) {
    io.err(`export: ${problem}\n\nRun with --help for usage.\n`);
    return EXIT_CANNOT_RUN;
  }
  const endpoint = tracesUrl(values['otlp-endpoint']!);
  const headers: Record<string, string> = {};
  for (const header of values.header ?? []) {
    const split = header.indexOf('=');
    headers[header.slice(0, split).trim()] = header.slice(split + 1).trim();
  }
  const client = createAgentServerClient({ baseUrl: values['base-url']!, sessionApiKey: values['session-api-key'] ?? io.env.SESSION_API_KEY });

  let ids: string[];
  if (values.all) {
    const listed = await client.listStoredConversations().catch((error: unknown) => ({ ok: false as const, error }));
    if (!listed.ok) {
      io.err(`export: could not list the stored conversations of ${values['base-url']}: ${describe(listed.error)}\n`);
      return EXIT_CANNOT_RUN;
    }
    ids = listed.list.items.map((item) => item.id);
  } else ids = values.conversation ?? [];

  const progress = progressLine(io, ids.length);
  let spans = 0;
  let requests = 0;
  let pushedCount = 0;
  const failures: string[] = [];
  for (const [index, id] of ids.entries()) {
    progress.start(index, id);
    try {
      const pushed = await pushOne(client, endpoint, id, headers, (sent) => progress.update(index, id, sent.spans));
      spans += pushed.spans;
      requests += pushed.requests;
      pushedCount += 1;
      progress.done(index, id, pushed.spans);
    } catch (error) {
      const message = `${id}: ${describe(error)}`;
      failures.push(message);
      progress.failed(message);
      // A collector that refuses one trace or cannot be reached will do the same for the next.
      if (error instanceof PushError) break;
    }
  }
  progress.finish();
  io.out(
    `Pushed ${pushedCount} of ${ids.length} conversation${ids.length === 1 ? '' : 's'} to ${endpoint.href}: ${spans} spans in ${requests} requests.\n`,
  );
  for (const failure of failures) io.out(`  failed: ${failure}\n`);
  return failures.length === 0 ? EXIT_PUSHED : EXIT_FAILED;
}

function flagProblem(values: {
  'otlp-endpoint'?: string;
  'base-url'?: string;
  conversation?: string[];
  all?: boolean;
  header?: string[];
}): string | undefined {
  if (!values['otlp-endpoint']) return '--otlp-endpoint is required';
  if (!values['base-url']) return '--base-url is required';
  for (const [flag, value] of [
    ['--otlp-endpoint', values['otlp-endpoint']],
    ['--base-url', values['base-url']],
  ] as const) {
    if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) return `${flag} must be an http or https URL, not ${value}`;
  }
  if ((values.all === true) === (values.conversation !== undefined)) return 'give either --conversation ID (one or more) or --all';
  for (const header of values.header ?? []) if (header.indexOf('=') <= 0) return `--header takes NAME=VALUE, not ${header}`;
  return undefined;
}

async function pushOne(
  client: AgentServerClient,
  endpoint: URL,
  id: string,
  headers: Record<string, string>,
  onBatch: (pushed: { spans: number }) => void,
): Promise<{ spans: number; requests: number }> {
  const info = await client.api.GET('/api/conversations/{conversation_id}', { params: { path: { conversation_id: id } } });
  const exported = await client.exportConversation(id, 'jsonl');
  if (!exported.ok) throw new Error(`the server answered ${exported.error.status}: ${exported.error.message}`);
  const body = exported.response.body;
  if (!body) throw new Error('the server sent an empty export');
  const lines = createInterface({ input: Readable.fromWeb(body as import('node:stream/web').ReadableStream), crlfDelay: Number.POSITIVE_INFINITY });
  async function* events(): AsyncGenerator<Event> {
    for await (const line of lines) if (line.trim() !== '') yield JSON.parse(line) as Event;
  }
  const conversation = { conversationId: id, title: null, info: info.data as Record<string, unknown> | undefined };
  return pushConversationTrace(endpoint, conversation, events(), { headers, onBatch });
}

function progressLine(io: ExportIo, total: number) {
  const prefix = (index: number) => `[${index + 1}/${total}]`;
  let drawn = false;
  const draw = (text: string) => {
    if (!io.errIsTerminal) return;
    io.err(`\r\x1b[2K${text}`);
    drawn = true;
  };
  return {
    start: (index: number, id: string) => draw(`${prefix(index)} ${id}`),
    update: (index: number, id: string, spans: number) => draw(`${prefix(index)} ${id}: ${spans} spans sent`),
    done(index: number, id: string, spans: number) {
      if (io.errIsTerminal) draw(`${prefix(index)} ${id}: ${spans} spans`);
      else io.err(`${prefix(index)} ${id}: ${spans} spans\n`);
    },
    failed(message: string) {
      if (drawn) io.err('\n');
      drawn = false;
      io.err(`export: ${message}\n`);
    },
    finish() {
      if (drawn) io.err('\n');
    },
  };
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause;
  if (error instanceof Error) return cause?.code ? `${error.message} (${cause.code})` : error.message;
  if (typeof error === 'object' && error !== null && 'message' in error) return String((error as { message: unknown }).message);
  return String(error);
}
