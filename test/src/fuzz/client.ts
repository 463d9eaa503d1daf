import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export type RawRequest = {
  readonly method: string;
  /** Path and query string, already percent-encoded. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
};

export type RawResponse = {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
  /** From the first byte sent to the last byte received. */
  readonly ms: number;
};

/**
 * The app on a real socket, one keep-alive connection, requests one at a time: the bytes
 * go out exactly as built (supertest would re-encode some of them), and a refused
 * request's effect on the log is measured with nothing else in flight.
 */
export class Client {
  private readonly server: http.Server;
  private readonly agent: http.Agent;
  readonly port: number;
  private constructor(
    server: http.Server,
    agent: http.Agent,
    port: number,
  ) {
    this.server = server;
    this.agent = agent;
    this.port = port;
  }

  static async start(app: Express): Promise<Client> {
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    return new Client(server, agent, (server.address() as AddressInfo).port);
  }

  send(req: RawRequest, timeoutMs = 30_000): Promise<RawResponse> {
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { ...req.headers };
      if (req.body) headers['content-length'] = String(req.body.length);
      const outgoing = http.request({ host: '127.0.0.1', port: this.port, method: req.method, path: req.path, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), ms: performance.now() - started }));
        res.on('error', reject);
      });
      outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      outgoing.on('error', reject);
      outgoing.end(req.body);
    });
  }

  /** A JSON request of the world's set-up. */
  async json(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: unknown; headers: http.IncomingHttpHeaders }> {
    const res = await this.send({
      method,
      path,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: Buffer.from(JSON.stringify(body)) }),
    });
    const text = res.body.toString('utf8');
    return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as unknown) : undefined };
  }

  async close(): Promise<void> {
    this.agent.destroy();
    await new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }
}
