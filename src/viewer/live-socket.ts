/**
 * The events socket as the viewer uses it: a signal that the conversation has new events.
 * It asks for the events since the newest one shown (so nothing written while the page
 * loaded is missed), authenticates with a first frame (the key never goes into an
 * address), and reports any event but the first state update. The timeline then reads
 * the new events through the search, with the view's own filters and order.
 */
export interface LiveHandlers {
  /** Called for each event the socket sends. */
  onEvent(): void;
  /** Called once when the socket fails or closes without being asked to. */
  onFailure(): void;
}

export interface LiveConnection {
  close(): void;
}

export function followEvents(
  conversationId: string,
  since: string | undefined,
  sessionKey: string | undefined,
  handlers: LiveHandlers,
): LiveConnection {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const query = since === undefined ? '' : `?resend_mode=since&after_timestamp=${encodeURIComponent(since)}`;
  let closing = false;
  let failed = false;
  const fail = () => {
    if (closing || failed) return;
    failed = true;
    handlers.onFailure();
  };
  let socket: WebSocket;
  try {
    socket = new WebSocket(`${scheme}://${location.host}/sockets/events/${encodeURIComponent(conversationId)}${query}`);
  } catch {
    queueMicrotask(fail);
    return { close: () => undefined };
  }
  socket.addEventListener('open', () => {
    if (sessionKey !== undefined) socket.send(JSON.stringify({ type: 'auth', session_api_key: sessionKey }));
  });
  socket.addEventListener('message', (message) => {
    let frame: { kind?: unknown; key?: unknown } | undefined;
    try {
      frame = JSON.parse(String(message.data)) as { kind?: unknown; key?: unknown };
    } catch {
      return;
    }
    if (frame?.kind === 'ConversationStateUpdateEvent' && frame.key === 'full_state') return;
    handlers.onEvent();
  });
  socket.addEventListener('error', fail);
  socket.addEventListener('close', fail);
  return {
    close() {
      closing = true;
      socket.close();
    },
  };
}
