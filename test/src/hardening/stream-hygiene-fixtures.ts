import { readdirSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Express } from 'express';

/** Descriptors this process holds: the server runs in-process, so its files and sockets count. */
export const openDescriptors = () => readdirSync('/proc/self/fd').length;

/** Polls (bounded) until the count is back within `slack` of `baseline`; answers the last count. */
export async function settledDescriptors(baseline: number, slack: number, timeoutMs = 10_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const count = openDescriptors();
    if (count <= baseline + slack || Date.now() > deadline) return count;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function listen(app: Express | Parameters<typeof createServer>[1]): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** A raw connection that has written `head` (and `body`, when given). */
export async function rawRequest(port: number, head: string, body?: Buffer): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write(head);
  if (body) socket.write(body);
  return socket;
}

/** Resolves when the socket is closed (by either side), or after `ms` with false. */
export function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  if (socket.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Resolves with the first bytes the server sends. */
export function firstBytes(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    socket.once('data', (d: Buffer) => resolve(d.toString('latin1')));
    socket.once('close', () => resolve(''));
  });
}

/** Runs `count` tasks, `width` at a time. */
export async function inBatches(count: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  for (let start = 0; start < count; start += width) {
    await Promise.all(Array.from({ length: Math.min(width, count - start) }, (_, j) => task(start + j)));
  }
}

/**
 * A proxy in front of an S3 server. While `failing` is on, an object's GET answers its
 * headers and first bytes, then the connection is cut: a store that errors mid-stream.
 */
export async function faultyS3Proxy(target: number): Promise<{ endpoint: string; failing: boolean; close(): Promise<void> }> {
  const state = { failing: false };
  const proxy = await listen((req: IncomingMessage, res: ServerResponse) => {
    const upstream = httpRequest({ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      if (req.method === 'GET' && state.failing && (answer.statusCode ?? 0) < 300) {
        answer.once('data', (chunk: Buffer) => {
          answer.pause();
          res.write(chunk);
          // Long enough for the SDK to hand the body over: the failure is mid-stream.
          setTimeout(() => {
            answer.destroy();
            res.destroy();
          }, 100);
        });
        return;
      }
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  return {
    endpoint: `http://127.0.0.1:${proxy.port}`,
    get failing() {
      return state.failing;
    },
    set failing(on: boolean) {
      state.failing = on;
    },
    close: proxy.close,
  };
}
