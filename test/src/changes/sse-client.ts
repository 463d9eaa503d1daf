import type { Change } from '@cairn/contract';

/** What one Server-Sent Events connection received, parsed as EventSource does (the fields the feed uses). */
export type SseConnection = {
  readonly status: number;
  readonly headers: Headers;
  /** The `change` events, in order. */
  readonly changes: Change[];
  /** The last id seen, from an event or a heartbeat: what a reconnect sends as Last-Event-ID. */
  lastEventId(): string | null;
  readonly heartbeats: () => number;
  /** The body, when the answer was not a stream (an error). */
  readonly text: () => string;
  /** Resolves when the server ended the stream (or the connection broke). */
  readonly ended: Promise<void>;
  waitFor(test: (changes: readonly Change[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
};

export async function openSse(url: string, token: string, lastEventId?: string | null): Promise<SseConnection> {
  const abort = new AbortController();
  const res = await fetch(url, {
    headers: { Accept: 'text/event-stream', Authorization: `Bearer ${token}`, ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}) },
    signal: abort.signal,
  });
  const changes: Change[] = [];
  let lastId: string | null = lastEventId ?? null;
  let heartbeats = 0;
  let raw = '';
  let buffer = '';
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of waiters) w();
  };
  const dispatch = (block: string) => {
    let data = '';
    let event = 'message';
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        if (line.startsWith(': heartbeat')) heartbeats += 1;
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') lastId = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data += value;
    }
    if (event === 'change' && data !== '') changes.push(JSON.parse(data) as Change);
  };
  const ended = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body) {
        const text = decoder.decode(chunk as Uint8Array, { stream: true });
        raw += text;
        buffer += text;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          dispatch(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
        notify();
      }
    } catch {
      // Aborted by close(), or the connection broke (a killed server).
    }
    notify();
  })();
  let done = false;
  void ended.then(() => (done = true));
  return {
    status: res.status,
    headers: res.headers,
    changes,
    lastEventId: () => lastId,
    heartbeats: () => heartbeats,
    text: () => raw,
    ended,
    waitFor(test, timeoutMs = 120_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (test(changes)) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve();
          } else if (done) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`the stream ended first; it had ${changes.length} changes`));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out with ${changes.length} changes: ${JSON.stringify(changes.map((c) => `${c.kind} ${c.action}`))}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => abort.abort(),
  };
}
