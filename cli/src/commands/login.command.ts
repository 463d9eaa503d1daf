import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples } from '../program/define-command.ts';
import { UsageError } from './args.ts';
import type { z as Zod } from 'zod';

/** What these commands run on, loaded when one runs: `cairn --help` loads none of it. */
const load = async () => ({ ...(await import('@cairn/platform')), ...(await import('zod')) });


/** The device authorization answer (RFC 8628 section 3.2). */
const deviceAuthorization = (z: typeof Zod) =>
  z.object({
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
 * the credentials file (mode 0600). A client of the service: it needs no database, only
 * the service's address.
 */
export const loginCommand = defineCommand(
  () =>
    new Command('login')
      .summary('sign in to a running service through the device flow and store the tokens')
      .description(
        'Signs in through the OAuth device flow (for hosts without a browser): prints an address and a code on stderr, waits until you approve it in a browser, then stores the tokens in the credentials file (mode 0600). Prints {"signed_in": true, "url", "scope", "expires_at", "credentials_file"}.',
      )
      .option('--device', 'use the device flow (the only flow here; required)', false)
      .option('--url <url>', "the service's address (default: CAIRN_PUBLIC_URL)")
      .option('--scopes <scopes>', 'the scopes to ask for', 'openid offline_access read write')
      .option('--credentials-file <file>', 'where to store the tokens (default: CAIRN_CREDENTIALS_FILE, else ~/.config/cairn/credentials.json)')
      .addHelpText('after', examples('cairn login --device --url https://cairn.example.org')),
  async (publicUrl: string, { options }) => {
    const { cliClientId, z } = await load();
    if (!options.device) throw new UsageError('only the device flow is available here: cairn login --device');
    const base = (options.url ?? publicUrl).replace(/\/+$/, '');
    const scope = options.scopes;
    const file = options.credentialsFile ?? defaultCredentialsFile();

    const started = await postForm(`${base}/oauth/device/auth`, { client_id: cliClientId, scope });
    if (started.status !== 200) throw new Error(`the device authorization was refused: ${String(started.body['error_description'] ?? started.body['error'])}`);
    const parsed = deviceAuthorization(z).safeParse(started.body);
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
  },
);

export const login = (args: readonly string[], publicUrl: string) => loginCommand.inProcess(publicUrl, args);
