import { apiDocsClientId, apiDocsRedirectPath } from '@cairn/query-api';
import type { Resources } from '../runtime/resources.ts';

/**
 * The OAuth client of the API page (/api/docs/): public (the page keeps no secret; PKCE
 * protects the code), authorization code and refresh tokens, redirected back to the page's
 * own address. Run at every start: a changed public URL replaces the redirect URI, and
 * starts at the same time agree (one row, an upsert).
 */
export async function ensureDocsClient(resources: Resources): Promise<void> {
  const metadata: Parameters<Resources['oauth']['provider']['Client']['validate']>[0] = {
    client_id: apiDocsClientId,
    client_name: 'Cairn API documentation',
    redirect_uris: [`${resources.config.publicUrl}${apiDocsRedirectPath}`],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  // Fails the start, as the OAuth server would fail every sign-in, if it would refuse the client.
  await resources.oauth.provider.Client.validate(metadata);
  await resources.pool.query(
    `insert into oidc_payloads (model, id, payload) values ('Client', $1, $2)
     on conflict (model, id) do update set payload = excluded.payload where oidc_payloads.payload is distinct from excluded.payload`,
    [apiDocsClientId, JSON.stringify(metadata)],
  );
}
