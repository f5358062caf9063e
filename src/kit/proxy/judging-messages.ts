/** The messages between the proxy's side of judging (judging.ts) and its thread (judging-worker.ts). */
import type { Coverage } from '../coverage';

/** Judge this exchange; or send the coverage so far. The body's buffer is transferred, not copied. */
export type JudgingRequest =
  | { kind: 'exchange'; seq: number; method: string; target: string; status: number; contentType: string | null; body: Uint8Array | undefined }
  | { kind: 'coverage' };

export type JudgingReply =
  | { kind: 'verdict'; seq: number; operationId: string | undefined; violations: string[] }
  | { kind: 'coverage'; coverage: Coverage };
