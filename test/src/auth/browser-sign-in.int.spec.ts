import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clientsCreate, serve, usersCreate, type Resources } from '@cairn/cli';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase } from '../support/database.ts';
import { openTestResources } from '../support/harness.ts';
import { freePort, repoRoot } from '../support/processes.ts';
import { browserTestsRun, chromiumPath } from '../support/optional-tools.ts';

// A real headless Chromium (Debian's package, never a downloaded build) walks the sign-in
// pages as a person would: labels, buttons, redirects, cookies and the CSP all apply.
const skip = !browserTestsRun();
// The network is closed: without these Chromium keeps dialling out and logging refusals.
const chromiumArgs = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const password = 'correct horse battery staple';
const scope = 'openid offline_access read write';
const stepTimeoutMs = 15_000;

type Query = Record<string, string>;

/** The client application's redirect URI: records every query it is called with. */
type CallbackServer = { readonly url: string; readonly hits: Query[]; close(): Promise<void> };

async function startCallbackServer(): Promise<CallbackServer> {
  const hits: Query[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/callback') hits.push(Object.fromEntries(url.searchParams));
    res.writeHead(url.pathname === '/callback' ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Client</title><p>Back at the client.</p>');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** Resolves with `promise`, or rejects after `ms` saying what was awaited. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe.skipIf(skip)('signing in with a real browser (Chromium)', () => {
  let resources: Resources;
  let running: { stop(): Promise<void> } | undefined;
  let base: string;
  let browser: Browser;
  let callback: CallbackServer;
  let tmp: string;
  let confidential: { client_id: string; client_secret: string };
  let publicClient: { client_id: string };
  const children: ChildProcess[] = [];
  const contexts: BrowserContext[] = [];
  const email = `browser-${randomBytes(3).toString('hex')}@example.org`;

  beforeAll(async () => {
    const port = await freePort();
    // Public URL = issuer = token audience base: it must be the address the browser uses.
    base = `http://127.0.0.1:${port}`;
    resources = await openTestResources(await createTestDatabase(), { CAIRN_PUBLIC_URL: base, PORT: String(port) });
    running = await serve(resources, 'all', port);
    callback = await startCallbackServer();
    tmp = await mkdtemp(path.join(tmpdir(), 'cairn-browser-'));
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArgs, timeout: 30_000 });

    await usersCreate(resources, ['--email', email, '--name', 'Browser User', '--password', password]);
    // `users create` catches the read models up before answering, but readAll only hands out
    // events below the cluster's snapshot horizon: with a transaction open elsewhere on the
    // server (parallel test files) the users row was once seen missing at the first sign-in.
    await vi.waitFor(
      async () => {
        const { rowCount } = await resources.pool.query('select 1 from users where email = $1', [email]);
        if (rowCount !== 1) throw new Error('the user is not in the users read model yet');
      },
      { timeout: stepTimeoutMs, interval: 100 },
    );
    confidential = (await clientsCreate(resources, ['--name', 'Browser web app', '--redirect-uri', callback.url])) as { client_id: string; client_secret: string };
    publicClient = (await clientsCreate(resources, ['--name', 'Browser native app', '--public', '--redirect-uri', callback.url])) as { client_id: string };
  });

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await callback?.close();
    await running?.stop();
    await resources?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  /** What Chromium said about each page (console errors such as CSP refusals), for failure messages. */
  const consoleOf = new WeakMap<Page, string[]>();

  async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext();
    contexts.push(context);
    context.setDefaultTimeout(stepTimeoutMs);
    context.setDefaultNavigationTimeout(stepTimeoutMs);
    const page = await context.newPage();
    const messages: string[] = [];
    consoleOf.set(page, messages);
    page.on('console', (m) => messages.push(`console ${m.type()}: ${m.text()}`));
    page.on('requestfailed', (r) => messages.push(`request failed: ${r.method()} ${r.url()} ${r.failure()?.errorText ?? ''}`));
    return { context, page };
  }

  const authorizeUrl = (clientId: string, challenge: string, state: string) => {
    const url = new URL('/oauth/authorize', base);
    url.search = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: callback.url,
      scope,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
    }).toString();
    return url.toString();
  };

  const tokenRequest = (form: Record<string, string>, authorization?: string) =>
    fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json', ...(authorization ? { Authorization: authorization } : {}) },
      body: new URLSearchParams(form),
      signal: AbortSignal.timeout(stepTimeoutMs),
    });

  const api = (method: string, pathname: string, token: string, body?: unknown) =>
    fetch(`${base}${pathname}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(stepTimeoutMs),
    });

  /** What the page shows, for failure messages. */
  const describePage = async (page: Page) =>
    `${page.url()}\n${(await page.locator('body').innerText().catch(() => '')).slice(0, 500)}\n${(consoleOf.get(page) ?? []).join('\n')}`;

  async function signIn(page: Page, signInEmail: string, signInPassword: string) {
    await expect.poll(() => page.getByRole('heading', { name: 'Sign in' }).isVisible(), { timeout: stepTimeoutMs, message: `no sign-in page` }).toBe(true);
    await page.getByLabel('Email').fill(signInEmail);
    await page.getByLabel('Password').fill(signInPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  async function approve(page: Page) {
    const button = page.getByRole('button', { name: 'Approve' });
    await button.waitFor({ state: 'visible' }).catch(async () => {
      throw new Error(`no consent page:\n${await describePage(page)}`);
    });
    await button.click();
  }

  /**
   * Waits until the browser is back at the client's redirect URI; fails at once (not after
   * the whole timeout) when Chromium refuses the navigation for the page's CSP.
   */
  async function arriveAtClient(page: Page, action: () => Promise<void>) {
    const refused = page
      .waitForEvent('console', { predicate: (m) => m.type() === 'error' && m.text().includes('Content Security Policy'), timeout: stepTimeoutMs })
      .then((m) => m.text())
      .catch(() => null);
    await action();
    const outcome = await Promise.race([
      page.waitForURL((url) => url.href.startsWith(callback.url)).then(
        () => 'arrived' as const,
        () => 'timeout' as const,
      ),
      refused.then((text) => text ?? new Promise<never>(() => undefined)),
    ]);
    if (outcome !== 'arrived') throw new Error(`the browser did not come back to the client (${outcome === 'timeout' ? 'timeout' : 'refused by CSP'}):\n${await describePage(page)}`);
  }

  /** Signs in and approves in the browser; returns the query the client's redirect URI received. */
  async function authorizeInBrowser(page: Page, clientId: string, challenge: string, state: string): Promise<Query> {
    const before = callback.hits.length;
    await page.goto(authorizeUrl(clientId, challenge, state));
    await signIn(page, email, password);
    await arriveAtClient(page, () => approve(page));
    expect(callback.hits.length).toBe(before + 1);
    return callback.hits[before] ?? {};
  }

  it('signs in with authorization code + PKCE (confidential client): the tokens work on the API and refresh, the cookie is HttpOnly and Lax', async () => {
    const { context, page } = await newPage();
    const { verifier, challenge } = pkcePair();
    const state = randomBytes(12).toString('base64url');

    // One look at the sign-in page as a person sees it.
    await page.goto(authorizeUrl(confidential.client_id, challenge, state));
    await page.getByLabel('Email').waitFor({ state: 'visible' });
    expect(new URL(page.url()).pathname).toMatch(/^\/oauth\/interaction\/[^/]+$/);
    const shot = path.join(tmp, 'sign-in.png');
    await page.screenshot({ path: shot, fullPage: true });
    const png = await readFile(shot);
    expect(png.length).toBeGreaterThan(1000);
    expect(png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);

    const query = await authorizeInBrowser(page, confidential.client_id, challenge, state);
    expect(query['state']).toBe(state);
    expect(query['error']).toBeUndefined();
    expect(query['code']).toEqual(expect.any(String));

    // The session cookie the browser got: HttpOnly, SameSite=Lax (not Secure over http).
    const cookie = (await context.cookies(base)).find((c) => c.name === 'cairn_session');
    expect(cookie, 'the browser holds a cairn_session cookie').toBeDefined();
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });

    const exchanged = await tokenRequest({ grant_type: 'authorization_code', code: query['code'] ?? '', redirect_uri: callback.url, code_verifier: verifier }, basic(confidential.client_id, confidential.client_secret));
    const tokens = (await exchanged.json()) as Record<string, string>;
    expect(exchanged.status, JSON.stringify(tokens)).toBe(200);
    expect(tokens).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), refresh_token: expect.any(String) });

    const me = await api('GET', '/api/auth/session/', tokens['access_token'] ?? '');
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ email, authenticated_by: 'bearer', is_system_admin: false });

    // The token has the write scope, but the user is no administrator.
    const create = await api('POST', '/api/funding-agencies/', tokens['access_token'] ?? '', { name: 'From the browser' });
    expect(create.status).toBe(403);
    expect(await create.json()).toMatchObject({ code: 'permission_denied' });

    const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens['refresh_token'] ?? '' }, basic(confidential.client_id, confidential.client_secret));
    const next = (await refreshed.json()) as Record<string, string>;
    expect(refreshed.status, JSON.stringify(next)).toBe(200);
    expect(next['access_token']).not.toBe(tokens['access_token']);
    expect((await api('GET', '/api/auth/session/', next['access_token'] ?? '')).status).toBe(200);

    // The browser's own session works on the API too (same origin, cookie sent by the browser).
    const asBrowser = await context.request.get(`${base}/api/auth/session/`, { timeout: stepTimeoutMs });
    expect(asBrowser.status()).toBe(200);
    expect(await asBrowser.json()).toMatchObject({ email, authenticated_by: 'session' });
  });

  it('signs in with authorization code + PKCE for a public client (client_id only)', async () => {
    const { page } = await newPage();
    const { verifier, challenge } = pkcePair();
    const state = randomBytes(12).toString('base64url');
    const query = await authorizeInBrowser(page, publicClient.client_id, challenge, state);
    expect(query['state']).toBe(state);

    const exchanged = await tokenRequest({ grant_type: 'authorization_code', code: query['code'] ?? '', redirect_uri: callback.url, code_verifier: verifier, client_id: publicClient.client_id });
    const tokens = (await exchanged.json()) as Record<string, string>;
    expect(exchanged.status, JSON.stringify(tokens)).toBe(200);
    const me = await api('GET', '/api/auth/session/', tokens['access_token'] ?? '');
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ email });
  });

  it('connects `cairn login --device` through the code entry, confirmation, sign-in and consent pages', async () => {
    const credentialsFile = path.join(tmp, 'device', 'creds.json');
    const child = spawn(process.execPath, [path.join(repoRoot, 'cli/bin/cairn.js'), 'login', '--device', '--url', base, '--credentials-file', credentialsFile], {
      cwd: repoRoot,
      env: { ...process.env, CAIRN_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => resolve(code));
    });
    const prompt = await within(
      new Promise<RegExpExecArray>((resolve, reject) => {
        child.stderr?.on('data', (d: Buffer) => {
          stderr += d.toString();
          const match = /To sign in, open (\S+) and enter the code (\S+)/.exec(stderr);
          if (match) resolve(match);
        });
        exited.then((code) => reject(new Error(`cairn login exited with ${code} before printing a code:\n${stderr}`)), reject);
      }),
      30_000,
      'cairn login printing the verification URI and code',
    );
    const verificationUri = prompt[1] ?? '';
    const userCode = prompt[2] ?? '';
    expect(verificationUri).toBe(`${base}/oauth/device`);
    expect(userCode).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);

    const { page } = await newPage();
    await page.goto(verificationUri);
    await page.getByLabel('Code').fill(userCode);
    await page.getByRole('button', { name: 'Continue' }).click();
    // The confirmation page repeats the code, with Continue and Cancel.
    await expect.poll(() => page.getByText(userCode, { exact: true }).isVisible(), { timeout: stepTimeoutMs, message: 'no confirmation page' }).toBe(true);
    expect(await page.getByRole('button', { name: 'Cancel' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Continue' }).click();
    await signIn(page, email, password);
    await approve(page);
    await page
      .getByRole('heading', { name: 'Device connected' })
      .waitFor({ state: 'visible' })
      .catch(async () => {
        throw new Error(`no "Device connected" page:\n${await describePage(page)}`);
      });

    // The command line polls (every 5 s by default) and then exits with the tokens stored.
    const code = await within(exited, 60_000, 'cairn login exiting after approval');
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout.trim())).toMatchObject({ signed_in: true, url: base, credentials_file: credentialsFile });
    expect((await stat(credentialsFile)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(credentialsFile, 'utf8')) as { access_token: string; refresh_token: string | null };
    const me = await api('GET', '/api/auth/session/', stored.access_token);
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ email, authenticated_by: 'bearer' });
  }, 90_000);

  it('shows the error on the page for a wrong password and does not sign in', async () => {
    const { context, page } = await newPage();
    const { challenge } = pkcePair();
    const before = callback.hits.length;
    await page.goto(authorizeUrl(confidential.client_id, challenge, 'wrong-password'));
    const answered = page.waitForResponse((r) => r.request().method() === 'POST' && /\/oauth\/interaction\/[^/]+\/login$/.test(new URL(r.url()).pathname));
    await signIn(page, email, 'not the password');
    expect((await answered).status()).toBe(401);
    const alert = page.getByRole('alert');
    await alert.waitFor({ state: 'visible' });
    expect(await alert.innerText()).toContain('not correct');
    // Still on the sign-in form, with the address kept and the password not.
    expect(await page.getByLabel('Email').inputValue()).toBe(email);
    expect(await page.getByLabel('Password').inputValue()).toBe('');
    expect((await context.cookies(base)).find((c) => c.name === 'cairn_session')).toBeUndefined();
    expect(callback.hits.length).toBe(before);
    expect((await context.request.get(`${base}/api/auth/session/`, { timeout: stepTimeoutMs })).status()).toBe(401);
  });
});
