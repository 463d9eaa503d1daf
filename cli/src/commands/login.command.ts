import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cliClientId } from '@cairn/platform';
import { z } from 'zod';
import { parseOptions, UsageError } from './args.ts';

/** The device authorization answer (RFC 8628 section 3.2). */
const deviceAuthorization = z.object({
  device_code: z.string(),
  user_code: z.string(),
  verification_uri: z.string(),
  verification_uri_complete: z.string().optional(),
  expires_in: z.number(),
  interval: z.number().optional(),
});

type TokenAnswer = { access_token?: string; refresh_token?: string; expires_in?: number; scope?: string; token_type?: string; error?: string; error_description?: string };

export function defaultCredentialsFile(env: NodeJS.ProcessEnv = process.env): string {
  return env['CAIRN_CREDENTIALS_FILE'] ?? path.join(env['XDG_CONFIG_HOME'] ?? path.join(homedir(), '.config'), 'cairn', 'credentials.json');
}

async function postForm(url: string, form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' }, body: new URLSearchParams(form) });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
  } catch {
    throw new Error(`unexpected answer from ${url} (${response.status})`);
  }
}

/**
 * `cairn login --device [--url URL] [--scopes S]`: the device authorization grant (RFC
 * 8628) for hosts without a browser. Prints the address and the code on stderr, polls at
 * the interval the server asks for (longer after `slow_down`), and stores the tokens in
 * the credentials file (mode 0600).
 */
export async function login(args: readonly string[], publicUrl: string) {
  const { values } = parseOptions(args, { device: { type: 'boolean' }, url: { type: 'string' }, scopes: { type: 'string' }, 'credentials-file': { type: 'string' } });
  if (values.device !== true) throw new UsageError('only the device flow is available here: cairn login --device');
  const base = (typeof values.url === 'string' ? values.url : publicUrl).replace(/\/+$/, '');
  const scope = typeof values.scopes === 'string' ? values.scopes : 'openid offline_access read write';
  const file = typeof values['credentials-file'] === 'string' ? values['credentials-file'] : defaultCredentialsFile();

  const started = await postForm(`${base}/oauth/device/auth`, { client_id: cliClientId, scope });
  if (started.status !== 200) throw new Error(`the device authorization was refused: ${String(started.body['error_description'] ?? started.body['error'])}`);
  const parsed = deviceAuthorization.safeParse(started.body);
  if (!parsed.success) throw new Error(`unexpected device authorization answer from ${base}/oauth/device/auth`);
  const device = parsed.data;
  process.stderr.write(`To sign in, open ${device.verification_uri} and enter the code ${device.user_code}\n`);
  if (device.verification_uri_complete) process.stderr.write(`(or open ${device.verification_uri_complete})\n`);

  let interval = Math.max(1, device.interval ?? 5);
  const deadline = Date.now() + device.expires_in * 1000;
  for (;;) {
    await sleep(interval * 1000);
    if (Date.now() > deadline) throw new Error('the code expired before it was approved');
    const polled = await postForm(`${base}/oauth/token`, {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: device.device_code,
      client_id: cliClientId,
    });
    const answer = polled.body as TokenAnswer;
    if (polled.status === 200 && answer.access_token) {
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      const expiresAt = new Date(Date.now() + (answer.expires_in ?? 0) * 1000).toISOString();
      await writeFile(file, `${JSON.stringify({ url: base, access_token: answer.access_token, refresh_token: answer.refresh_token ?? null, scope: answer.scope ?? scope, expires_at: expiresAt }, null, 2)}\n`, { mode: 0o600 });
      await chmod(file, 0o600);
      return { signed_in: true, url: base, scope: answer.scope ?? scope, expires_at: expiresAt, credentials_file: file };
    }
    if (answer.error === 'authorization_pending') continue;
    if (answer.error === 'slow_down') {
      interval += 5;
      continue;
    }
    throw new Error(`sign-in failed: ${answer.error_description ?? answer.error ?? `status ${polled.status}`}`);
  }
}
