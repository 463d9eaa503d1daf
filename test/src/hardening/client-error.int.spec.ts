import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, serve, type Harness } from '../support/harness.ts';

/**
 * Requests Node's HTTP parser refuses before express sees them still get the error shape
 * (DECISIONS.md 1) and the security headers; a half-sent head or an idle connection is
 * closed within its bound (docs/http.md).
 */
const headersTimeoutMs = 400;
const keepAliveTimeoutMs = 400;
describe('requests the HTTP parser refuses', () => {
  let h: Harness;
  let running: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    h = await startHarness('all', { CAIRN_HEADERS_TIMEOUT_MS: String(headersTimeoutMs), CAIRN_KEEP_ALIVE_TIMEOUT_MS: String(keepAliveTimeoutMs) });
    running = await serve(h.resources, 'query', 0);
  });
  afterAll(async () => {
    await running?.stop();
    await h?.close();
  });

  /** What the server answered and how long it kept the connection open, from the request's first byte. */
  const exchange = (text: string) =>
    new Promise<{ answer: string; openMs: number }>((resolve, reject) => {
      const url = new URL(running.url ?? '');
      let started = 0;
      const socket = net.connect(Number(url.port), url.hostname, () => {
        started = Date.now();
        socket.write(text);
      });
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
      socket.on('close', () => resolve({ answer, openMs: Date.now() - started }));
      socket.on('error', reject);
    });
  const raw = async (text: string) => (await exchange(text)).answer;
  const headerOf = (answer: string, name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(answer.slice(0, answer.indexOf('\r\n\r\n')))?.[1]?.trim();

  it('answers a request head over 16 KiB with 431 in the error shape', async () => {
    const answer = await raw(`GET /api/assets/?q=${'q'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { status: number; code: string };
    expect(body).toMatchObject({ status: 431, code: 'request_header_fields_too_large' });
    expect(headerOf(answer, 'X-Content-Type-Options')).toBe('nosniff');
    expect(headerOf(answer, 'X-Frame-Options')).toBe('DENY');
    expect(headerOf(answer, 'Content-Security-Policy')).toContain("frame-ancestors 'none'");
  });

  it('closes a connection that sends half a request head, within the headers timeout', async () => {
    const { answer, openMs } = await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    // Node checks the bound once a second at most (connectionsCheckingInterval).
    expect(openMs).toBeLessThan(headersTimeoutMs + 2500);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 408, code: 'request_timeout' });
    expect(headerOf(answer, 'X-Content-Type-Options')).toBe('nosniff');
  }, 10_000);

  it('closes an idle kept-alive connection after the keep-alive timeout', async () => {
    const { answer, openMs } = await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(openMs).toBeLessThan(keepAliveTimeoutMs + 2500);
  }, 10_000);

  it('answers a malformed request line with 400 in the error shape', async () => {
    const answer = await raw('NOT A REQUEST\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 400, code: 'bad_request' });
  });
});
