import { randomBytes, randomUUID } from 'node:crypto';
import { Command } from '@commander-js/extra-typings';
import { collect, defineCommand, examples, nonEmpty } from '../program/define-command.ts';
import type { Resources } from '../runtime/resources.ts';
import { UsageError } from './args.ts';

/** What these commands run on, loaded when one runs: `cairn --help` loads none of it. */
const load = async () => ({ ...(await import('@cairn/domain')), ...(await import('@cairn/platform')), ...(await import('./operator.ts')) });


/** `cairn clients create --name N [--redirect-uri URI ...] [--public]`: an OAuth 2.0 client (DECISIONS.md 7). */
export const clientsCreateCommand = defineCommand(
  () =>
    new Command('create')
      .summary('register an OAuth client; prints {"client_id", "client_secret"}')
      .description(
        'Registers an OAuth 2.0 client of the service\'s own OAuth server, recorded in the audit log (never its secret). With redirect URIs it may use the authorization code flow; without, only the device flow. Prints {"client_id", "client_secret"} (no secret for a public client).',
      )
      .requiredOption('--name <name>', 'the name shown on the sign-in and consent pages (required)', nonEmpty)
      .option('--redirect-uri <uri>', 'a redirect URI; repeat for more (default: none, device flow only)', collect, [])
      .option('--public', 'a public client (a native or browser app that keeps no secret; PKCE protects its codes)', false)
      .addHelpText('after', examples('cairn clients create --name "Web app" --redirect-uri https://app.example.org/callback', 'cairn clients create --name "Desktop" --public --redirect-uri http://127.0.0.1:8765/callback')),
  async (resources: Resources, { options }) => {
    const { executeCommand, oauthClients, operatorContext, operatorMetadata } = await load();
    const redirectUris = options.redirectUri;
    const clientId = randomUUID();
    const metadata: Record<string, unknown> = {
      client_id: clientId,
      client_name: options.name,
      redirect_uris: redirectUris,
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      response_types: ['code'],
      token_endpoint_auth_method: options.public ? 'none' : 'client_secret_basic',
    };
    if (redirectUris.length === 0) {
      metadata['grant_types'] = ['refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'];
      metadata['response_types'] = [];
    }
    const secret = options.public ? null : randomBytes(32).toString('base64url');
    if (secret) metadata['client_secret'] = secret;

    const { provider } = resources.oauth;
    try {
      // Validates the metadata as the OAuth server will read it back.
      await provider.Client.validate(metadata as Parameters<typeof provider.Client.validate>[0]);
    } catch (error) {
      throw new UsageError(`invalid client: ${(error as Error & { error_description?: string }).error_description ?? (error as Error).message}`);
    }
    await resources.pool.query("insert into oidc_payloads (model, id, payload) values ('Client', $1, $2)", [clientId, JSON.stringify(metadata)]);
    // Recorded once it exists, as `tokens issue` records a token once issued.
    await executeCommand(
      resources.eventStore,
      oauthClients.oauthClientDecider,
      oauthClients.oauthClientStream(clientId),
      { type: 'RegisterOAuthClient', clientId, name: options.name, isPublic: options.public, redirectUris },
      operatorContext(),
      operatorMetadata('clients create'),
      { newStream: true },
    );
    return secret ? { client_id: clientId, client_secret: secret } : { client_id: clientId };
  },
);

export const clientsCreate = clientsCreateCommand.inProcess;
