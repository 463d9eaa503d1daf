import { mkdtemp } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clientsCreate, createRepository, type Resources } from '@cairn/cli';
import fc from 'fast-check';
import type { Client, RawRequest, RawResponse } from './client.ts';
import type { Caller } from './world.ts';

/**
 * What the contract's OpenAPI document does not hold, yet anyone can reach: the OAuth
 * server, the sign-in pages, download links, the docs, the operational endpoints; and
 * requests abandoned half way (uploads cut mid-body, downloads left after the answer's
 * head). Issue 23: each has a bound on what it takes, never answers 500, and leaves no
 * descriptor open.
 */

export type Abandon = 'none' | 'at-once' | 'mid-body' | 'after-head';
export type OutsideCase = { readonly name: string; readonly variant: string; readonly request: RawRequest; readonly abandon: Abandon };

/** What the generators need: a real OAuth client, a real download link, an asset to upload to and a token that may. */
export type OutsideWorld = { readonly clientId: string; readonly downloadPath: string; readonly assetId: string; readonly token: string };

export async function prepareOutside(client: Client, resources: Resources, admin: Caller): Promise<OutsideWorld> {
  const { client_id: clientId } = await clientsCreate(resources, ['--name', 'Fuzz client', '--redirect-uri', 'http://127.0.0.1:9/cb', '--public']);
  const dir = await mkdtemp(path.join(tmpdir(), 'cairn-fuzz-'));
  const { id: repositoryId } = await createRepository(resources, `fuzz-${path.basename(dir)}`, { kind: 'fs', path: dir });
  const allocation = await client.json('POST', '/api/allocations/', admin.token, { owner_type: 'user', owner_id: admin.id, repository_id: repositoryId, limit_bytes: 10 * 1024 ** 3 });
  if (allocation.status !== 201) throw new Error(`allocation: ${allocation.status} ${JSON.stringify(allocation.body)}`);
  const asset = await client.json('POST', '/api/assets/', admin.token, { title: 'Downloads and uploads' });
  const assetId = String((asset.body as { id: string }).id);
  const uploaded = await client.send(uploadRequest(assetId, admin.token, Buffer.alloc(256 * 1024, 7), 'rows.bin'));
  if (uploaded.status !== 201) throw new Error(`upload: ${uploaded.status} ${uploaded.body.toString()}`);
  const location = await client.json('GET', `/api/assets/${assetId}/location/`, admin.token);
  const found = JSON.stringify(location.body).match(/\/api\/assets\/[^"]*\/download\/\?[^"]*/);
  if (!found) throw new Error(`no download link in ${JSON.stringify(location.body)}`);
  return { clientId, downloadPath: found[0], assetId, token: admin.token };
}

const boundary = 'fuzzboundary7MA4YWxkTrZu0gW';
function uploadRequest(assetId: string, token: string, bytes: Buffer, filename: string): RawRequest {
  const head = Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${filename}"\r\ncontent-type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { method: 'POST', path: `/api/assets/${assetId}/content/`, headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` }, body: Buffer.concat([head, bytes, tail]) };
}

/** Values a hostile client puts in parameters: ordinary, odd, and far too long. */
const hostile = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom('', '%', '%00', '\u0000', '\u2028', '😀'.repeat(10), '../../etc/passwd', "' or 1=1 --", 'openid offline_access', 'S256') },
  { weight: 1, arbitrary: fc.integer({ min: 4_000, max: 400_000 }).map((n) => 'x'.repeat(n)) },
);
const formOf = (known: readonly string[], fixed: Record<string, string> = {}) =>
  fc
    .tuple(fc.dictionary(fc.constantFrom(...known), hostile, { maxKeys: known.length }), fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), hostile, { maxKeys: 3 }))
    .map(([a, b]) => new URLSearchParams({ ...b, ...a, ...fixed }).toString());

const form = (method: string, path_: string, body: string): RawRequest => ({ method, path: path_, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: Buffer.from(body) });
const get = (path_: string, headers: Record<string, string> = {}): RawRequest => ({ method: 'GET', path: path_, headers });

export function outsideCases(w: OutsideWorld, skip?: RegExp): fc.Arbitrary<OutsideCase> {
  const token = ['grant_type', 'code', 'refresh_token', 'client_id', 'client_secret', 'redirect_uri', 'code_verifier', 'device_code', 'scope', 'resource'];
  const authorize = ['client_id', 'response_type', 'redirect_uri', 'scope', 'state', 'nonce', 'code_challenge', 'code_challenge_method', 'prompt', 'resource', 'request_uri'];
  const grants = fc.constantFrom('authorization_code', 'refresh_token', 'client_credentials', 'urn:ietf:params:oauth:grant-type:device_code', 'password', 'junk');
  const named = (name: string, arb: fc.Arbitrary<RawRequest>, abandon: fc.Arbitrary<Abandon> = fc.constant('none')) =>
    fc.tuple(arb, abandon).map(([request, a]) => ({ name, variant: a === 'none' ? name : `${name} (abandoned ${a})`, request, abandon: a }));
  const [downloadPath, downloadQuery] = w.downloadPath.split('?') as [string, string];
  const tampered = fc.constantFrom(
    w.downloadPath,
    w.downloadPath.replace(/signature=[^&]*/, 'signature=AAAA'),
    w.downloadPath.replace(/expires=\d+/, 'expires=99999999999'),
    `${downloadPath}?${downloadQuery}&expires=1`,
    `${downloadPath}?signature=${'a'.repeat(5000)}`,
    downloadPath,
  );
  const all = [
    named('POST /oauth/token', grants.chain((g) => formOf(token, { grant_type: g, client_id: w.clientId })).map((b) => form('POST', '/oauth/token', b))),
    named('POST /oauth/token (any client)', formOf(token).map((b) => form('POST', '/oauth/token', b))),
    named('POST /oauth/par', formOf(authorize, { client_id: w.clientId }).map((b) => form('POST', '/oauth/par', b))),
    named('POST /oauth/device/auth', formOf(['client_id', 'scope', 'resource'], { client_id: w.clientId }).map((b) => form('POST', '/oauth/device/auth', b))),
    named('POST /oauth/token/revocation', formOf(['token', 'token_type_hint', 'client_id'], { client_id: w.clientId }).map((b) => form('POST', '/oauth/token/revocation', b))),
    named('POST /oauth/token/introspection', formOf(['token', 'token_type_hint', 'client_id']).map((b) => form('POST', '/oauth/token/introspection', b))),
    named('GET /oauth/authorize', formOf(authorize, { client_id: w.clientId, response_type: 'code' }).map((q) => get(`/oauth/authorize?${q}`))),
    named('GET /oauth/device', formOf(['user_code']).map((q) => get(`/oauth/device?${q}`))),
    named('POST /oauth/device', formOf(['user_code', 'xsrf']).map((b) => form('POST', '/oauth/device', b))),
    named('GET /oauth/interaction/{uid}', fc.string({ minLength: 1, maxLength: 60 }).map((uid) => get(`/oauth/interaction/${encodeURIComponent(uid)}`))),
    named('POST /oauth/interaction/{uid}/login', fc.tuple(fc.string({ minLength: 1, maxLength: 40 }), formOf(['email', 'password'])).map(([uid, b]) => form('POST', `/oauth/interaction/${encodeURIComponent(uid)}/login`, b))),
    named('GET well-known and keys', fc.constantFrom('/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/oauth/jwks').map((p) => get(p))),
    named('GET docs', fc.constantFrom('/api/docs/', '/api/docs/oauth2-redirect.html', '/api/docs/missing.js', '/api/schema/', '/api/schema/?format=yaml').map((p) => get(p))),
    named('GET operational', fc.constantFrom('/healthz', '/readyz', '/metrics').map((p) => get(p))),
    named('GET download link', tampered.map((p) => get(p)), fc.constantFrom<Abandon>('none', 'at-once', 'after-head')),
    named('GET download link (valid)', fc.constant(get(w.downloadPath)), fc.constantFrom<Abandon>('none', 'at-once', 'at-once', 'after-head')),
    named(
      'POST upload',
      fc.integer({ min: 0, max: 300_000 }).map((n) => uploadRequest(w.assetId, w.token, Buffer.alloc(n, 1), `fuzz-${n}.bin`)),
      fc.constantFrom<Abandon>('none', 'at-once', 'mid-body', 'mid-body', 'after-head'),
    ),
  ];
  const kept = all.filter((arb) => !skip || !fc.sample(arb, { numRuns: 1, seed: 1 }).some((c) => skip.test(c.name)));
  return fc.oneof(...kept);
}

/** The raw bytes of a request, as a client would send them. */
function wireBytes(req: RawRequest): Buffer {
  const headers = { host: '127.0.0.1', ...req.headers, ...(req.body ? { 'content-length': String(req.body.length) } : {}), connection: 'close' };
  const head = `${req.method} ${req.path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), req.body ?? Buffer.alloc(0)]);
}

/**
 * A request its client gives up on: dropped as soon as it is sent, cut half way through
 * its body, or dropped once the answer's head has arrived (a download nobody reads).
 * Resolves when the socket is gone.
 */
export function sendAbandoned(port: number, req: RawRequest, how: Exclude<Abandon, 'none'>): Promise<void> {
  return new Promise((resolve) => {
    const bytes = wireBytes(req);
    const socket = net.connect(port, '127.0.0.1');
    const done = () => {
      socket.destroy();
      resolve();
    };
    socket.on('error', done);
    socket.on('close', done);
    socket.setTimeout(5_000, done);
    socket.on('connect', () => {
      if (how === 'mid-body') {
        socket.write(bytes.subarray(0, Math.max(1, bytes.length - Math.ceil((req.body?.length ?? 2) / 2))), () => setTimeout(done, 5));
        return;
      }
      if (how === 'at-once') {
        socket.write(bytes, done);
        return;
      }
      socket.write(bytes);
      socket.once('data', done);
    });
  });
}

/** What every answer outside the contract must keep: an answer, no 5xx but a 503 that says when to come back, within the bound. */
export function outsideViolations(c: OutsideCase, res: RawResponse, boundMs: number): string[] {
  const problems: string[] = [];
  // Node's parser refuses a head over 16 KiB itself (431, then it closes the connection).
  const headBytes = c.request.path.length + Object.entries(c.request.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
  if (headBytes > 16_000 && (res.status === 0 || res.status === 431)) return [];
  if (res.status === 0) problems.push(`no answer: ${res.body.toString().slice(0, 200)}`);
  if (res.status >= 500 && !(res.status === 503 && res.headers['retry-after'])) problems.push(`${res.status}: ${res.body.toString().slice(0, 300)}`);
  if (res.status === 429 && !res.headers['retry-after']) problems.push('429 without Retry-After');
  if (res.ms > boundMs) problems.push(`took ${res.ms.toFixed(0)} ms (bound ${boundMs})`);
  if (!res.headers['x-content-type-options']) problems.push(`${c.name} answered without the security headers`);
  return problems;
}

/**
 * The files this process (the server runs in it) holds open: what a leaked download or
 * upload holds. Sockets and pipes come and go with pools and keep-alive.
 */
export async function openFiles(): Promise<string[]> {
  const { readdir, readlink } = await import('node:fs/promises');
  const files: string[] = [];
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target.startsWith('/') && !target.startsWith('/dev/') && !target.startsWith('/proc/')) files.push(target);
  }
  return files;
}

export async function openDescriptors(): Promise<number> {
  return (await openFiles()).length;
}

/** Waits (bounded) for the open files to come back to at most `limit`; answers the last count. */
export async function descriptorsSettle(limit: number, timeoutMs = 10_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await openDescriptors();
    if (now <= limit || Date.now() > deadline) return now;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Sends one case (or abandons it) and answers what it broke. */
export async function runOutside(client: Client, c: OutsideCase, boundMs: number): Promise<{ status: number; ms: number; problems: string[] }> {
  if (c.abandon !== 'none') {
    await sendAbandoned(client.port, c.request, c.abandon);
    return { status: 0, ms: 0, problems: [] };
  }
  let res: RawResponse;
  try {
    res = await client.send(c.request, boundMs * 5);
  } catch (error) {
    res = { status: 0, headers: {}, body: Buffer.from(String(error)), ms: 0 };
  }
  return { status: res.status, ms: res.ms, problems: outsideViolations(c, res, boundMs) };
}
