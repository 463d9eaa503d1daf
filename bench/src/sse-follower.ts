import { request, type ClientRequest } from 'node:http';

/** One Server-Sent Events follower of the change feed, parsed just enough to count and time its changes. */
export type SseFollower = {
  readonly received: () => number;
  readonly lastId: () => string | null;
  close(): void;
  readonly opened: Promise<number>;
};

/**
 * Opens `GET path` with `Accept: text/event-stream` and calls `onChange` with each change's
 * JSON text as it arrives. Plain node:http, so a thousand of them cost the bench little.
 */
export function followSse(baseUrl: string, path: string, token: string, onChange: (data: string, at: number) => void): SseFollower {
  let received = 0;
  let lastId: string | null = null;
  let buffer = '';
  let req: ClientRequest | null = null;
  const opened = new Promise<number>((resolve, reject) => {
    req = request(`${baseUrl}${path}`, { headers: { Accept: 'text/event-stream', Authorization: `Bearer ${token}` } }, (res) => {
      resolve(res.statusCode ?? 0);
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        const at = performance.timeOrigin + performance.now();
        buffer += text;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
          let data: string | null = null;
          for (const line of block.split('\n')) {
            if (line.startsWith('id: ')) lastId = line.slice(4);
            else if (line.startsWith('data: ')) data = line.slice(6);
          }
          if (data !== null) {
            received += 1;
            onChange(data, at);
          }
        }
      });
      res.on('error', () => undefined);
    });
    req.on('error', reject);
    req.end();
  });
  return {
    received: () => received,
    lastId: () => lastId,
    close: () => req?.destroy(),
    opened,
  };
}
