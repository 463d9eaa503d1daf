import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples } from '../program/define-command.ts';
import type { Resources } from '../runtime/resources.ts';
import { UsageError } from './args.ts';

/** What these commands run on, loaded when one runs: `cairn --help` loads none of it. */
const load = async () => ({ ...(await import('@cairn/domain')), ...(await import('@cairn/platform')), ...(await import('@cairn/query-api')), ...(await import('./operator.ts')) });


/** Clients the service makes itself (the command line's, the API page's): listed, never revoked. */
const builtIn = async () => {
  const { apiDocsClientId, cliClientId } = await load();
  return new Set([cliClientId, apiDocsClientId]);
};

type ClientPayload = { client_name?: string; redirect_uris?: string[]; grant_types?: string[]; token_endpoint_auth_method?: string };

/** `cairn clients list`: every registered OAuth client, without secrets. */
export const clientsListCommand = defineCommand(
  () =>
    new Command('list')
      .summary('list OAuth clients; prints {"clients"}')
      .description('Lists the OAuth clients stored by the service (never their secrets), with how many grants each holds. Prints {"clients": [{"client_id", "name", "public", "redirect_uris", "grant_types", "grants", "built_in"}]}.')
      .addHelpText('after', examples('cairn clients list')),
  async (resources: Resources) => {
    const known = await builtIn();
    const { rows } = await resources.pool.query<{ id: string; payload: ClientPayload; grants: number }>(
      `select c.id, c.payload, (select count(*)::int from oidc_payloads g where g.model = 'Grant' and g.payload->>'clientId' = c.id) as grants
       from oidc_payloads c where c.model = 'Client' order by c.payload->>'client_name', c.id`,
    );
    return {
      clients: rows.map((r) => ({
        client_id: r.id,
        name: r.payload.client_name ?? null,
        public: r.payload.token_endpoint_auth_method === 'none',
        redirect_uris: r.payload.redirect_uris ?? [],
        grant_types: r.payload.grant_types ?? [],
        grants: r.grants,
        built_in: known.has(r.id),
      })),
    };
  },
);

/** `cairn clients revoke CLIENT_ID`: the client and every grant and token it holds. */
export const clientsRevokeCommand = defineCommand(
  () =>
    new Command('revoke')
      .summary('revoke an OAuth client with all its grants and tokens; prints what was revoked')
      .description(
        'Removes an OAuth client with every grant, token and code it holds; its tokens are refused by every running service at once. Recorded in the audit log. The built-in clients (cairn-cli, the API page\'s) cannot be revoked. Prints {"client_id", "revoked": true, "grants", "access_tokens"}.',
      )
      .argument('<client-id>', 'the client id (see cairn clients list)')
      .addHelpText('after', examples('cairn clients revoke 0190e0c4-5b7a-7cc2-9a51-3f1f0f3e9b10')),
  async (resources: Resources, { args: [clientId] }) => {
    const { executeCommand, oauthClients, operatorContext, operatorMetadata, revokeClient } = await load();
    if ((await builtIn()).has(clientId)) throw new UsageError(`${clientId} is a built-in client of the service; it cannot be revoked`);
    const revoked = await revokeClient(resources.pool, clientId, resources.authCache.evict);
    if (!revoked.revoked) throw new Error(`no OAuth client ${clientId}`);
    await executeCommand(
      resources.eventStore,
      oauthClients.oauthClientDecider,
      oauthClients.oauthClientStream(clientId),
      { type: 'RevokeOAuthClient', clientId },
      operatorContext(),
      operatorMetadata('clients revoke'),
    );
    return { client_id: clientId, revoked: true, grants: revoked.grants, access_tokens: revoked.accessTokens };
  },
);

export const clientsList = clientsListCommand.inProcess;
export const clientsRevoke = clientsRevokeCommand.inProcess;
