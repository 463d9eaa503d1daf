import { createHash } from 'node:crypto';
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples, nonEmpty } from '../program/define-command.ts';
import type { Resources } from '../runtime/resources.ts';
import { UsageError } from './args.ts';

/** What these commands run on, loaded when one runs: `cairn --help` loads none of it. */
const load = async () => ({ ...(await import('@cairn/domain')), ...(await import('@cairn/platform')), ...(await import('./operator.ts')) });



/** The audit log keeps a digest of a token, never the token. */
export const tokenDigest = (value: string) => createHash('sha256').update(value).digest('hex');

/** `cairn tokens issue --user USER_ID_OR_EMAIL [--scopes "read write"] [--ttl SECONDS]` (DECISIONS.md 7) */
export const tokensIssueCommand = defineCommand(
  () =>
    new Command('issue')
      .summary('issue an access token for a user; prints the token answer')
      .description(
        'Issues a real access token of the service\'s own OAuth server, revocable, recorded in the audit log by its digest. Prints {"access_token", "token_type": "Bearer", "expires_in", "scope"}.',
      )
      .requiredOption('--user <user>', 'the user: an id or an e-mail address (required)', nonEmpty)
      .option('--scopes <scopes>', 'the scopes, separated by spaces or commas: read, write, openid', 'read write')
      .option('--ttl <seconds>', 'lifetime in seconds, at most a year (default: CAIRN_ACCESS_TOKEN_TTL_SECONDS, 900 unless set)')
      .addHelpText('after', examples('cairn tokens issue --user ada@example.org', 'cairn tokens issue --user ada@example.org --scopes read --ttl 600')),
  async (resources: Resources, { options }) => {
    const { accessTokens, apiScopes, cliClientId, executeCommand, issueAccessToken, operatorContext, operatorMetadata, resolveUserId } = await load();
    const userId = await resolveUserId(resources, options.user);
    const scopes = options.scopes.split(/[\s,]+/).filter(Boolean);
    const knownScopes = new Set<string>([...apiScopes, 'openid']);
    const unknown = scopes.filter((s) => !knownScopes.has(s));
    if (unknown.length > 0) throw new UsageError(`unknown scopes: ${unknown.join(' ')}`);
    const ttl = options.ttl !== undefined ? Number(options.ttl) : resources.config.accessTokenTtlSeconds;
    if (!Number.isInteger(ttl) || ttl <= 0 || ttl > 31_536_000) throw new UsageError('--ttl must be a whole number of seconds, at most a year');
    const scope = [...new Set(scopes)].join(' ');
    const token = await issueAccessToken(resources.oauth, { userId, scope, ttlSeconds: ttl, clientId: cliClientId });
    const digest = tokenDigest(token.value);
    await executeCommand(
      resources.eventStore,
      accessTokens.accessTokenDecider,
      accessTokens.accessTokenStream(digest.slice(0, 32)),
      { type: 'RecordAccessTokenIssued', tokenDigest: digest, userId, clientId: cliClientId, scope, expiresAt: new Date(Date.now() + ttl * 1000).toISOString() },
      operatorContext(),
      operatorMetadata('tokens issue'),
    );
    return { access_token: token.value, token_type: 'Bearer', expires_in: token.expiresIn, scope };
  },
);

export const tokensIssue = tokensIssueCommand.inProcess;
