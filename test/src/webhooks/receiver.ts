import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Received = { readonly headers: IncomingHttpHeaders; readonly body: string; readonly at: number };

/**
 * A webhook receiver on 127.0.0.1: records every POST and answers `status` (settable),
 * after `delayMs` (settable), so tests can fail it, slow it, or heal it.
 */
export type Receiver = {
  readonly url: string;
  readonly received: Received[];
  status: number;
  delayMs: number;
  close(): Promise<void>;
};

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const received: Received[] = [];
  const state = { status: 204, delayMs: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      setTimeout(() => res.writeHead(state.status).end(), state.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    get status() {
      return state.status;
    },
    set status(value: number) {
      state.status = value;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(value: number) {
      state.delayMs = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
