import { randomBytes, randomUUID } from 'node:crypto';
import type { Resources } from '../runtime/resources.ts';
import { parseOptions, requireOption, UsageError } from './args.ts';

/** `cairn clients create --name N [--redirect-uri URI ...] [--public]`: an OAuth 2.0 client. */
export async function clientsCreate(resources: Resources, args: readonly string[]) {
  const { values } = parseOptions(args, { name: { type: 'string' }, 'redirect-uri': { type: 'string', multiple: true }, public: { type: 'boolean' } });
  const name = requireOption(values.name, 'name');
  const redirectUris = (values['redirect-uri'] ?? []).filter((u): u is string => typeof u === 'string');
  const isPublic = values.public === true;
  const clientId = randomUUID();
  const metadata: Record<string, unknown> = {
    client_id: clientId,
    client_name: name,
    redirect_uris: redirectUris,
    grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
    response_types: ['code'],
    token_endpoint_auth_method: isPublic ? 'none' : 'client_secret_basic',
  };
  if (redirectUris.length === 0) {
    metadata['grant_types'] = ['refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'];
    metadata['response_types'] = [];
  }
  const secret = isPublic ? null : randomBytes(32).toString('base64url');
  if (secret) metadata['client_secret'] = secret;

  const { provider } = resources.oauth;
  try {
    // Validates the metadata as the OAuth server will read it back.
    await provider.Client.validate(metadata as Parameters<typeof provider.Client.validate>[0]);
  } catch (error) {
    throw new UsageError(`invalid client: ${(error as Error & { error_description?: string }).error_description ?? (error as Error).message}`);
  }
  await resources.pool.query("insert into oidc_payloads (model, id, payload) values ('Client', $1, $2)", [clientId, JSON.stringify(metadata)]);
  return secret ? { client_id: clientId, client_secret: secret } : { client_id: clientId };
}
