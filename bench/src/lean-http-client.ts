import net from 'node:net';

/** An answer as the load loops need it: the status, the headers, and the body only when asked for or not a success. */
export type LeanReply = { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly bodyBytes: number; readonly body: string | null };

type Connection = { readonly socket: net.Socket; readonly send: (pending: Pending) => void };

type Pending = {
  readonly head: Buffer;
  readonly keepBody: boolean;
  readonly resolve: (reply: LeanReply) => void;
  readonly reject: (error: Error) => void;
  /** Sent once again on a new connection when the server closed an idle one as it went out. */
  retried: boolean;
};

/** Where a connection is in reading its current answer. */
type Reading = { header: Buffer[]; headerBytes: number; status: number; headers: Record<string, string>; left: number; bodyBytes: number; body: Buffer[] | null };

const headerEnd = Buffer.from('\r\n\r\n');
const readBufferBytes = 256 * 1024;

function parseHead(head: string): { status: number; headers: Record<string, string> } {
  const lines = head.split('\r\n');
  const status = Number((lines[0] ?? '').split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status, headers };
}

/**
 * A keep-alive HTTP/1.1 client for load loops, `connections` sockets at most, one request in
 * flight on each. Each socket reads into one buffer of its own (`onread`), so that a 90 KB
 * page costs the client no new buffers: with Node's `http` client, every page's chunks were
 * external memory, and the mark-compact collections they set off every 150–300 ms took
 * most of the client's CPU, which the measured service and PostgreSQL share on two cores
 * (docs/benchmarks.md, seventeenth sitting). Answers must carry a Content-Length (the
 * service's JSON answers do); a body is kept only when asked for or when the status is 400
 * or more.
 */
export function leanHttpClient(baseUrl: string, connections: number) {
  const base = new URL(baseUrl);
  const idle: Connection[] = [];
  const waiting: Pending[] = [];
  let open = 0;
  let closed = false;

  function connect(): void {
    open += 1;
    const buffer = Buffer.allocUnsafe(readBufferBytes);
    let current: Pending | null = null;
    let reading: Reading | null = null;
    /** Whether the socket ever opened, and what ended it. */
    let connected = false;
    let cause: Error | null = null;
    const socket = net.connect({
      host: base.hostname,
      port: Number(base.port),
      onread: {
        buffer,
        callback: (bytes: number, into: Uint8Array) => {
          if (current === null || reading === null) return true;
          consume(Buffer.from(into.buffer, into.byteOffset, bytes));
          return true;
        },
      },
    });
    socket.setNoDelay(true);

    const finish = (error: Error | null) => {
      const pending = current;
      const read = reading;
      current = null;
      reading = null;
      if (pending === null || read === null) return;
      if (error) {
        // What is left of an answer it cannot read would be taken for the next one's: the connection goes.
        pending.reject(error);
        socket.destroy();
        return;
      }
      pending.resolve({ status: read.status, headers: read.headers, bodyBytes: read.bodyBytes, body: read.body === null ? null : Buffer.concat(read.body).toString('utf8') });
      release();
    };

    function consume(chunk: Buffer): void {
      const read = reading as Reading;
      let rest = chunk;
      if (read.status === 0) {
        // The head mostly comes whole in the first read; only a head split across reads is copied.
        const whole = read.header.length === 0 ? rest : Buffer.concat([...read.header, rest]);
        const end = whole.indexOf(headerEnd);
        if (end === -1) {
          read.header = [Buffer.from(whole)];
          read.headerBytes = whole.length;
          return;
        }
        const { status, headers } = parseHead(whole.toString('latin1', 0, end));
        if (headers['transfer-encoding'] !== undefined || !/^\d+$/.test(headers['content-length'] ?? '')) return finish(new Error(`the lean client reads answers with a Content-Length only (status ${status})`));
        read.status = status;
        read.headers = headers;
        read.left = Number(headers['content-length']);
        if ((current as Pending).keepBody || status >= 400) read.body = [];
        rest = whole.subarray(end + headerEnd.length);
      }
      const taken = Math.min(rest.length, read.left);
      read.left -= taken;
      read.bodyBytes += taken;
      if (read.body !== null && taken > 0) read.body.push(Buffer.from(rest.subarray(0, taken)));
      if (read.left === 0) finish(null);
    }

    function release(): void {
      connected = true;
      if (closed) {
        socket.destroy();
        return;
      }
      const next = waiting.shift();
      if (next) send(next);
      else idle.push(connection);
    }

    function send(pending: Pending): void {
      current = pending;
      reading = { header: [], headerBytes: 0, status: 0, headers: {}, left: 0, bodyBytes: 0, body: null };
      socket.write(pending.head);
    }

    const connection: Connection = { socket, send };
    const lost = () => {
      open -= 1;
      const at = idle.indexOf(connection);
      if (at !== -1) idle.splice(at, 1);
      const pending = current;
      const answered = (reading?.status ?? 0) !== 0 || (reading?.headerBytes ?? 0) > 0;
      current = null;
      reading = null;
      const failure = new Error(`the connection closed before the answer ended${cause ? `: ${cause.message}` : ''}`);
      if (pending !== null) {
        // The server closed a kept-alive connection as the request went out: once more on a new one.
        if (connected && !answered && !pending.retried && !closed) {
          pending.retried = true;
          dispatch(pending);
        } else pending.reject(failure);
      }
      // A connection that never opened fails every request waiting for one; otherwise those waiting get a new one.
      if (!connected || closed) {
        if (open === 0) for (const waiter of waiting.splice(0)) waiter.reject(failure);
      } else if (waiting.length > 0 && open < connections) connect();
    };
    socket.on('error', (error) => {
      cause = error;
      socket.destroy();
    });
    socket.on('close', lost);
    socket.once('connect', () => release());
  }

  function dispatch(pending: Pending): void {
    const connection = idle.pop();
    if (connection) {
      connection.send(pending);
      return;
    }
    waiting.push(pending);
    if (open < connections) connect();
  }

  return {
    request(method: string, path: string, headers: Readonly<Record<string, string>>, body?: string, options: { keepBody?: boolean } = {}): Promise<LeanReply> {
      const bodyBytes = body === undefined ? null : Buffer.from(body, 'utf8');
      const lines = [`${method} ${path} HTTP/1.1`, `host: ${base.host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), ...(bodyBytes ? [`content-length: ${bodyBytes.length}`] : []), '', ''];
      const head = bodyBytes ? Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), bodyBytes]) : Buffer.from(lines.join('\r\n'), 'latin1');
      return new Promise((resolve, reject) => dispatch({ head, keepBody: options.keepBody ?? false, resolve, reject, retried: false }));
    },
    close(): void {
      closed = true;
      for (const connection of idle.splice(0)) connection.socket.destroy();
    },
  };
}
