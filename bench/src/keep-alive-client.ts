import http from 'node:http';

export type Reply = { readonly status: number; readonly headers: http.IncomingHttpHeaders; readonly body: string };

/** A minimal keep-alive HTTP client: one agent per base URL, `sockets` connections at most. */
export function keepAliveClient(baseUrl: string, sockets: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  const base = new URL(baseUrl);
  return {
    request(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Reply> {
      return new Promise((resolve, reject) => {
        const req = http.request({ agent, host: base.hostname, port: base.port, method, path, headers: body ? { ...headers, 'content-length': String(Buffer.byteLength(body)) } : headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}
