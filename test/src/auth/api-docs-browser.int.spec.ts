import { randomBytes } from 'node:crypto';
import { ensureDocsClient, serve, usersCreate, type Resources } from '@cairn/cli';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase } from '../support/database.ts';
import { openTestResources } from '../support/harness.ts';
import { freePort } from '../support/processes.ts';
import { browserTestsRun, chromiumPath } from '../support/optional-tools.ts';

// The API page (Swagger UI, docs/api-docs.md) in a real headless Chromium (Debian's
// package): its assets, its CSP, the sign-in popup through the service's own OAuth server
// and one call tried from the page with the token it got.
const skip = !browserTestsRun();
const chromiumArgs = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const password = 'correct horse battery staple';
const stepTimeoutMs = 15_000;

describe.skipIf(skip)('the API page in a real browser (Chromium)', () => {
  let resources: Resources;
  let running: { stop(): Promise<void> } | undefined;
  let base: string;
  let browser: Browser;
  let context: BrowserContext | undefined;
  const email = `api-docs-${randomBytes(3).toString('hex')}@example.org`;

  beforeAll(async () => {
    const port = await freePort();
    // Public URL = issuer = the address the browser uses (the page's redirect URI is built from it).
    base = `http://127.0.0.1:${port}`;
    resources = await openTestResources(await createTestDatabase(), { CAIRN_PUBLIC_URL: base, PORT: String(port) });
    running = await serve(resources, 'all', port);
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArgs, timeout: 30_000 });
    await usersCreate(resources, ['--email', email, '--name', 'Docs Reader', '--password', password]);
    // See browser-sign-in.int.spec.ts: the users read model may lag behind a parallel file's transaction.
    await vi.waitFor(
      async () => {
        const { rowCount } = await resources.pool.query('select 1 from users where email = $1', [email]);
        if (rowCount !== 1) throw new Error('the user is not in the users read model yet');
      },
      { timeout: stepTimeoutMs, interval: 100 },
    );
  });

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await browser?.close();
    await running?.stop();
    await resources?.close();
  });

  it('loads only its own assets, signs in through the OAuth popup and runs a call with the token', async () => {
    // `cairn serve` registered the page's public client for this public URL.
    const { rows } = await resources.pool.query<{ payload: Record<string, unknown> }>("select payload from oidc_payloads where model = 'Client' and id = 'cairn-api-docs'");
    expect(rows[0]?.payload).toMatchObject({ redirect_uris: [`${base}/api/docs/oauth2-redirect.html`], token_endpoint_auth_method: 'none' });

    context = await browser.newContext();
    context.setDefaultTimeout(stepTimeoutMs);
    context.setDefaultNavigationTimeout(stepTimeoutMs);
    const requested: string[] = [];
    const problems: string[] = [];
    // On the context: the popup's requests count too.
    context.on('request', (r) => requested.push(r.url()));
    context.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    context.on('weberror', (e) => problems.push(`error: ${e.error().message}`));
    const page = await context.newPage();
    const describePage = async (p: Page) => `${p.url()}\n${(await p.locator('body').innerText().catch(() => '')).slice(0, 500)}\n${problems.join('\n')}`;

    await page.goto(`${base}/api/docs/`);
    await page
      .locator('.swagger-ui .info .title')
      .filter({ hasText: 'Console API' })
      // The first render parses a 1.5 MB bundle and lays out every operation: slow on a loaded machine.
      .waitFor({ state: 'visible', timeout: 2 * stepTimeoutMs })
      .catch(async () => {
        throw new Error(`Swagger UI did not render the document:\n${await describePage(page)}`);
      });
    const operation = page.locator('#operations-auth-auth_session_retrieve');
    await operation.waitFor({ state: 'visible' });

    await page.locator('.auth-wrapper button.authorize').click();
    const dialog = page.locator('.dialog-ux .modal-ux');
    await dialog.waitFor({ state: 'visible' });
    const oauth = dialog.locator('.auth-container').filter({ hasText: 'oauth2 (OAuth2, authorizationCode with PKCE)' });
    // The page's client id and scopes come from its initOAuth; every scope the page asks for is ticked.
    expect(await oauth.locator('#client_id_authorizationCode').inputValue()).toBe('cairn-api-docs');
    for (const scope of ['openid', 'read', 'write']) {
      expect(await oauth.locator(`input[data-value="${scope}"]`).isChecked(), scope).toBe(true);
    }
    const [popup] = await Promise.all([context.waitForEvent('page'), oauth.getByRole('button', { name: 'Apply given OAuth2 credentials' }).click()]);
    await popup.waitForLoadState();
    expect(new URL(popup.url()).origin).toBe(base);
    await popup
      .getByLabel('Email')
      .waitFor({ state: 'visible' })
      .catch(async () => {
        throw new Error(`no sign-in page in the popup:\n${await describePage(popup)}`);
      });
    await popup.getByLabel('Email').fill(email);
    await popup.getByLabel('Password').fill(password);
    const closed = popup.waitForEvent('close', { timeout: stepTimeoutMs });
    const token = page.waitForResponse((r) => r.url() === `${base}/oauth/token` && r.request().method() === 'POST');
    await popup.getByRole('button', { name: 'Sign in' }).click();
    // The page is a client like any other: the person approves what it asks for.
    await popup
      .getByRole('button', { name: 'Approve' })
      .click()
      .catch(async () => {
        throw new Error(`no consent page in the popup:\n${await describePage(popup)}`);
      });
    // oauth2-redirect.html hands the code to the page through window.opener, then closes.
    await closed.catch(async () => {
      throw new Error(`the popup did not close:\n${await describePage(popup)}`);
    });
    expect((await token).status()).toBe(200);
    await oauth
      .getByRole('button', { name: 'Remove authorization' })
      .waitFor({ state: 'visible' })
      .catch(async () => {
        throw new Error(`the page shows no signed-in state:\n${await describePage(page)}`);
      });
    await dialog.locator('.modal-ux-header button.close-modal').click();

    await operation.locator('.opblock-summary-control').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    const call = page.waitForRequest((r) => r.url() === `${base}/api/auth/session/` && r.method() === 'GET');
    await operation.getByRole('button', { name: 'Execute' }).click();
    const sent = await call;
    expect(sent.headers()['authorization']).toMatch(/^Bearer \S+$/);
    const shown = operation.locator('.live-responses-table .response');
    await shown.first().waitFor({ state: 'visible' });
    expect((await shown.locator('.response-col_status').first().innerText()).trim()).toBe('200');
    const body = await shown.locator('.response-col_description pre').first().innerText();
    expect(JSON.parse(body)).toMatchObject({ email, authenticated_by: 'bearer', scopes: expect.arrayContaining(['read', 'write']) });

    // Nothing from elsewhere (the CDN, the public validator), and nothing the CSP refused.
    const elsewhere = requested.filter((url) => !url.startsWith('data:') && new URL(url).origin !== base);
    expect(elsewhere).toEqual([]);
    expect(requested).toContain(`${base}/api/docs/assets/swagger-ui-bundle.js`);
    expect(problems).toEqual([]);
  }, 90_000);
});

describe('the API page’s OAuth client', () => {
  it('is registered once, as a public client, and follows the public URL from one start to the next', async () => {
    const databaseUrl = await createTestDatabase();
    const rowsOf = async (resources: Resources) => (await resources.pool.query<{ payload: Record<string, unknown> }>("select payload from oidc_payloads where model = 'Client' and id = 'cairn-api-docs'")).rows;
    const first = await openTestResources(databaseUrl, { CAIRN_PUBLIC_URL: 'http://docs-a.test' });
    try {
      await Promise.all([ensureDocsClient(first), ensureDocsClient(first)]);
      await ensureDocsClient(first);
      expect(await rowsOf(first)).toHaveLength(1);
    } finally {
      await first.close();
    }
    const moved = await openTestResources(databaseUrl, { CAIRN_PUBLIC_URL: 'https://docs-b.test' });
    try {
      await ensureDocsClient(moved);
      const rows = await rowsOf(moved);
      expect(rows).toHaveLength(1);
      expect(rows[0]?.payload).toMatchObject({ redirect_uris: ['https://docs-b.test/api/docs/oauth2-redirect.html'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] });
      const client = await moved.oauth.provider.Client.find('cairn-api-docs');
      expect(client?.redirectUris).toEqual(['https://docs-b.test/api/docs/oauth2-redirect.html']);
      expect(client?.clientAuthMethod).toBe('none');
    } finally {
      await moved.close();
    }
  });
});
