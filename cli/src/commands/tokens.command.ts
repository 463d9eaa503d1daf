import { createHash } from 'node:crypto';
import { accessTokens } from '@cairn/domain';
import { apiScopes, cliClientId, executeCommand, issueAccessToken } from '@cairn/platform';
import type { Resources } from '../runtime/resources.ts';
import { parseOptions, requireOption, UsageError } from './args.ts';
import { operatorContext, operatorMetadata, resolveUserId } from './operator.ts';

const knownScopes = new Set<string>([...apiScopes, 'openid']);

/** `cairn tokens issue --user USER_ID_OR_EMAIL [--scopes "read write"] [--ttl SECONDS]` */
export async function tokensIssue(resources: Resources, args: readonly string[]) {
  const { values } = parseOptions(args, { user: { type: 'string' }, scopes: { type: 'string' }, ttl: { type: 'string' } });
  const userId = await resolveUserId(resources, requireOption(values.user, 'user'));
  const scopes = (typeof values.scopes === 'string' ? values.scopes : 'read write').split(/[\s,]+/).filter(Boolean);
  const unknown = scopes.filter((s) => !knownScopes.has(s));
  if (unknown.length > 0) throw new UsageError(`unknown scopes: ${unknown.join(' ')}`);
  const ttl = typeof values.ttl === 'string' ? Number(values.ttl) : resources.config.accessTokenTtlSeconds;
  if (!Number.isInteger(ttl) || ttl <= 0 || ttl > 31_536_000) throw new UsageError('--ttl must be a whole number of seconds, at most a year');
  const scope = [...new Set(scopes)].join(' ');

  const token = await issueAccessToken(resources.oauth, { userId, scope, ttlSeconds: ttl, clientId: cliClientId });
  // The audit log keeps a digest of the token, never the token.
  const tokenDigest = createHash('sha256').update(token.value).digest('hex');
  await executeCommand(
    resources.eventStore,
    accessTokens.accessTokenDecider,
    accessTokens.accessTokenStream(tokenDigest.slice(0, 32)),
    { type: 'RecordAccessTokenIssued', tokenDigest, userId, clientId: cliClientId, scope, expiresAt: new Date(Date.now() + ttl * 1000).toISOString() },
    operatorContext(),
    operatorMetadata('tokens issue'),
  );
  return { access_token: token.value, token_type: 'Bearer', expires_in: token.expiresIn, scope };
}
