/**
 * The frames of the session socket (`WS /sockets/session/{conversation_id}`), as the reference
 * 1.58.2 writes them (`session_protocol.py`): an envelope with a `type`, fields whose value is
 * none left out. Every frame this server sends on that socket is made by `sessionFrame`, the
 * one place to put anything that must see every frame before it leaves. A stored event rides
 * inside as its stored bytes: the reference stores events as it sends them (pydantic's dump
 * without null fields), so the bytes are the frame's `event` as it is.
 */
export type SessionFrame =
  | { type: 'sync'; fromSeq?: string; throughSeq?: number }
  | { type: 'durable'; seq: number; event: Buffer }
  | { type: 'transient'; event: Buffer | string }
  | { type: 'error'; code: string; detail: string };

/** The frame's JSON text. */
export function sessionFrame(frame: SessionFrame): Buffer {
  switch (frame.type) {
    case 'sync': {
      // `from_seq` echoes the client's `after_seq`, which Python reads without a bound: its digits as read.
      const fields = [`"type":"sync"`];
      if (frame.fromSeq !== undefined) fields.push(`"from_seq":${frame.fromSeq}`);
      if (frame.throughSeq !== undefined) fields.push(`"through_seq":${frame.throughSeq}`);
      return Buffer.from(`{${fields.join(',')}}`);
    }
    case 'durable':
      return Buffer.concat([Buffer.from(`{"type":"durable","seq":${frame.seq},"event":`), frame.event, CLOSING_BRACE]);
    case 'transient':
      return Buffer.concat([Buffer.from('{"type":"transient","event":'), Buffer.from(frame.event), CLOSING_BRACE]);
    case 'error':
      return Buffer.from(JSON.stringify({ type: 'error', code: frame.code, detail: frame.detail }));
  }
}

const CLOSING_BRACE = Buffer.from('}');
