import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, serve, type Harness } from '../support/harness.ts';

/** Requests Node's HTTP parser refuses before express sees them still get the error shape (DECISIONS.md 1). */
describe('requests the HTTP parser refuses', () => {
  let h: Harness;
  let running: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    h = await startHarness('all');
    running = await serve(h.resources, 'query', 0);
  });
  afterAll(async () => {
    await running?.stop();
    await h?.close();
  });

  const raw = (text: string) =>
    new Promise<string>((resolve, reject) => {
      const url = new URL(running.url ?? '');
      const socket = net.connect(Number(url.port), url.hostname, () => socket.write(text));
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
      socket.on('end', () => resolve(answer));
      socket.on('error', reject);
    });

  it('answers a request head over 16 KiB with 431 in the error shape', async () => {
    const answer = await raw(`GET /api/assets/?q=${'q'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { status: number; code: string };
    expect(body).toMatchObject({ status: 431, code: 'request_header_fields_too_large' });
  });

  it('answers a malformed request line with 400 in the error shape', async () => {
    const answer = await raw('NOT A REQUEST\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 400, code: 'bad_request' });
  });
});
