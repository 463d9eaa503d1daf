import { text } from 'node:stream/consumers';
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples } from '../program/define-command.ts';
import type { Resources } from '../runtime/resources.ts';
import { UsageError } from './args.ts';
import { tokenDigest } from './tokens.command.ts';

/** What these commands run on, loaded when one runs: `cairn --help` loads none of it. */
const load = async () => ({ ...(await import('@cairn/domain')), ...(await import('@cairn/platform')), ...(await import('./operator.ts')) });


/** The stored access token whose value is `value`, or whose SHA-256 digest (as the audit log shows it) is `digest`. */
async function findToken(resources: Resources, by: { value: string } | { digest: string }): Promise<string | null> {
  if ('value' in by) {
    const { rows } = await resources.pool.query<{ id: string }>("select id from oidc_payloads where model = 'AccessToken' and id = $1", [by.value]);
    return rows[0]?.id ?? null;
  }
  const { rows } = await resources.pool.query<{ id: string }>(
    "select id from oidc_payloads where model = 'AccessToken' and encode(sha256(convert_to(id, 'UTF8')), 'hex') = $1",
    [by.digest.toLowerCase()],
  );
  return rows[0]?.id ?? null;
}

/**
 * `cairn tokens revoke TOKEN | - | --digest SHA256`: the token and its grant (the refresh
 * token and every other token of that sign-in) stop working at once, on every running
 * service; the revocation is in the audit log by digest.
 */
export const tokensRevokeCommand = defineCommand(
  () =>
    new Command('revoke')
      .summary('revoke an access token and its grant; prints what was revoked')
      .description(
        'Revokes an access token and the grant it belongs to (its refresh token and every other token of that sign-in), on every running service at once; recorded in the audit log by digest. Name the token itself (after "--", since a token may begin with "-"), "-" to read it from stdin (keeps it out of the process list), or its SHA-256 digest as the audit log shows it. Prints {"revoked": true, "token_digest", "user_id", "client_id", "access_tokens"}.',
      )
      .argument('[token]', 'the access token, or - to read it from stdin')
      .option('--digest <sha256>', "the token's SHA-256 digest in hex (the tokenDigest of its AccessTokenIssued event)")
      .addHelpText('after', examples('cairn tokens revoke --digest 3f0c...e1', 'printf %s "$TOKEN" | cairn tokens revoke -', 'cairn tokens revoke -- "$TOKEN"')),
  async (resources: Resources, { args: [token], options }) => {
    const { accessTokens, executeCommand, operatorContext, operatorMetadata, revokeAccessToken, revokeGrant } = await load();
    if ((token === undefined) === (options.digest === undefined)) throw new UsageError('name the token or its --digest (one of them)');
    if (options.digest !== undefined && !/^[0-9a-f]{64}$/i.test(options.digest)) throw new UsageError('--digest must be 64 hexadecimal digits');
    const value = token === '-' ? (await text(process.stdin)).trim() : token;
    const id = await findToken(resources, value !== undefined ? { value } : { digest: options.digest ?? '' });
    if (!id) throw new Error('no such token: unknown, expired and purged, or revoked already');
    const found = await resources.oauth.provider.AccessToken.find(id, { ignoreExpiration: true });
    const grantId = found?.grantId ?? null;
    const revoked = grantId ? await revokeGrant(resources.pool, grantId, resources.authCache.evict) : (await revokeAccessToken(resources.pool, id, resources.authCache.evict), { accessTokens: 1 });
    const digest = tokenDigest(id);
    const userId = found?.accountId ?? '';
    const clientId = found?.clientId ?? '';
    await executeCommand(
      resources.eventStore,
      accessTokens.accessTokenDecider,
      accessTokens.accessTokenStream(digest.slice(0, 32)),
      { type: 'RecordAccessTokenRevoked', tokenDigest: digest, userId, clientId, grantId },
      operatorContext(),
      operatorMetadata('tokens revoke'),
    );
    return { revoked: true, token_digest: digest, user_id: userId, client_id: clientId, access_tokens: revoked.accessTokens };
  },
);

export const tokensRevoke = tokensRevokeCommand.inProcess;
