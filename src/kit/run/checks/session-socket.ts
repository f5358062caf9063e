/**
 * The reference 1.58.2's session socket (`WS /sockets/session/{conversation_id}`,
 * docs/reference-behaviour.md, "The session socket"), judged against the search walk: with
 * `after_seq=-1` a `sync` frame, then a `durable` frame for every event the walk returns, their
 * `seq` rising, then the `full_state` update as a `transient` frame; resumed after one of those
 * positions, exactly the frames after it; an unknown conversation closed 4004; an id that is
 * not a UUID refused 403. A server without the socket gets "not implemented".
 */
import { randomUUID } from 'node:crypto';
import type { CheckContext } from '../context';
import { notImplemented, verdict, type Check, type CheckOutcome, type Finding } from '../types';
import { socketAnswer } from './socket-and-catalog';

type SessionFrame = { type?: unknown; seq?: unknown; from_seq?: unknown; through_seq?: unknown; event?: { id?: unknown; key?: unknown } };

function sessionUrl(context: CheckContext, conversationId: string | undefined, query?: string): string {
  return context.socketUrl(conversationId, query).replace('/sockets/events/', '/sockets/session/');
}

function sessionMissing(answer: { refused?: number; frames: unknown[]; close?: { code: number } }): CheckOutcome | undefined {
  if (answer.refused === 404) return notImplemented('WS /sockets/session/{conversation_id}: the handshake was answered 404');
  if (answer.frames.length === 0 && answer.close?.code === 1011) return notImplemented('WS /sockets/session/{conversation_id}: closed 1011');
  return undefined;
}

/** What is wrong with a replay: its frames after the sync frame up to the state update, against the ids expected. */
function replayFindings(frames: SessionFrame[], expectedIds: readonly (string | undefined)[], what: string): Finding[] {
  const findings: Finding[] = [];
  const durable = frames.slice(1, -1);
  const last = frames.at(-1);
  if (last?.type !== 'transient' || last.event?.key !== 'full_state')
    findings.push({
      message: `${what}: the replay ends with ${JSON.stringify(last)?.slice(0, 200)}`,
      expected: 'a transient frame with the full_state update',
    });
  const seqs = durable.map((frame) => frame.seq);
  if (
    !durable.every((frame) => frame.type === 'durable') ||
    !seqs.every((seq, index) => typeof seq === 'number' && (index === 0 || seq > (seqs[index - 1] as number)))
  )
    findings.push({
      message: `${what}: the replayed frames are ${JSON.stringify(seqs).slice(0, 200)}`,
      expected: 'durable frames, their seq rising',
    });
  const ids = durable.map((frame) => (typeof frame.event?.id === 'string' ? frame.event.id : undefined));
  const sorted = (list: readonly (string | undefined)[]) => [...list].map(String).sort();
  if (JSON.stringify(sorted(ids)) !== JSON.stringify(sorted(expectedIds)))
    findings.push({
      message: `${what}: ${ids.length} events replayed where the search walk has ${expectedIds.length}`,
      expected: 'each event of the search walk once',
    });
  return findings;
}

const sessionReplay: Check = {
  id: 'ref.session-socket.replay',
  level: 'reference',
  title:
    'the session socket with after_seq=-1 sends a sync frame, a durable frame for each event of the search walk with rising seq, then the full_state update; resumed after a seq, the frames after it',
  async run(context) {
    const walked = context.data.events.map((event) => event.id);
    const answer = await socketAnswer(context, sessionUrl(context, undefined, 'after_seq=-1'), walked.length + 2);
    const missing = sessionMissing(answer);
    if (missing) return missing;
    const frames = answer.frames as SessionFrame[];
    const findings: Finding[] = [];
    const sync = frames[0];
    if (sync?.type !== 'sync' || sync.from_seq !== -1 || typeof sync.through_seq !== 'number')
      findings.push({
        message: `the first frame is ${JSON.stringify(sync)?.slice(0, 200)}`,
        expected: '{"type":"sync","from_seq":-1,"through_seq":<the newest position>}',
      });
    findings.push(...replayFindings(frames, walked, 'after_seq=-1'));
    const middle = frames[1 + Math.floor(walked.length / 2)];
    if (findings.length === 0 && typeof middle?.seq === 'number') {
      const after = frames
        .slice(2 + Math.floor(walked.length / 2), -1)
        .map((frame) => (typeof frame.event?.id === 'string' ? frame.event.id : undefined));
      const resumed = await socketAnswer(context, sessionUrl(context, undefined, `after_seq=${middle.seq}`), after.length + 2);
      const resumedFrames = resumed.frames as SessionFrame[];
      if (resumedFrames[0]?.from_seq !== middle.seq)
        findings.push({
          message: `resumed after ${middle.seq}, the sync frame is ${JSON.stringify(resumedFrames[0])}`,
          expected: `from_seq ${middle.seq}`,
        });
      findings.push(...replayFindings(resumedFrames, after, `after_seq=${middle.seq}`));
    }
    return verdict(findings, `${walked.length} events walked`);
  },
};

const sessionRefusals: Check = {
  id: 'ref.session-socket.unknown-and-invalid',
  level: 'reference',
  title: 'the session socket of a conversation that does not exist is closed 4004; an id that is not a UUID is refused with 403',
  async run(context) {
    const unknown = await socketAnswer(context, sessionUrl(context, randomUUID()), 1);
    const missing = sessionMissing(unknown);
    if (missing) return missing;
    const findings: Finding[] = [];
    if (unknown.close?.code !== 4004)
      findings.push({
        message: `an unknown conversation's socket ended ${JSON.stringify(unknown.close ?? unknown.frames[0])}`,
        expected: 'close code 4004',
      });
    const invalid = await socketAnswer(context, sessionUrl(context, 'not-a-uuid'), 1);
    if (invalid.refused !== 403)
      findings.push({
        message: `the socket of id "not-a-uuid" was ${invalid.refused ? `refused ${invalid.refused}` : 'accepted'}`,
        expected: 'the handshake refused with 403',
      });
    return verdict(findings);
  },
};

export function sessionSocketChecks(): Check[] {
  return [sessionReplay, sessionRefusals];
}
