import { users } from '@cairn/domain';
import { consentPage, isStorableText, messagePage, pageSecurityHeaders, serializeSessionCookie, signInPage } from '@cairn/platform';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { checkCredentials } from './credentials.ts';
import { recordSignIn } from './record-sign-in.ts';
import type { SignInDeps } from './sign-in.deps.ts';

type Details = Awaited<ReturnType<SignInDeps['oauth']['provider']['interactionDetails']>>;

const sendPage = (res: Response, status: number, html: string, headers: Record<string, string> = {}) => {
  res.status(status).set(pageSecurityHeaders).set(headers).type('html').send(html);
};

const wrap = (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => {
  fn(req, res).catch(next);
};

const sameAnswer = 'The e-mail address or password is not correct.';

/**
 * The pages oidc-provider sends browsers to (interactions): sign-in with e-mail and
 * password, then consent. Bodies are parsed here only (never before the OAuth server).
 */
export function interactionRoutes(deps: SignInDeps): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });
  const { provider } = deps.oauth;

  const clientName = async (details: Details) => {
    const client = await provider.Client.find(String(details.params['client_id'] ?? ''));
    return client?.clientName ?? client?.clientId ?? 'An application';
  };

  const details = async (req: Request, res: Response): Promise<Details | null> => {
    try {
      return await provider.interactionDetails(req, res);
    } catch {
      sendPage(res, 400, messagePage('Sign-in expired', 'This sign-in has expired or was already completed. Start again from the application.'));
      return null;
    }
  };

  router.get(
    '/oauth/interaction/:uid',
    wrap(async (req, res) => {
      const interaction = await details(req, res);
      if (!interaction) return;
      const base = `/oauth/interaction/${interaction.uid}`;
      if (interaction.prompt.name === 'login') {
        const upstream = deps.upstream ? { name: deps.upstream.name, href: `${base}/upstream` } : undefined;
        sendPage(res, 200, signInPage(`${base}/login`, { clientName: await clientName(interaction), ...(upstream ? { upstream } : {}) }));
        return;
      }
      const session = interaction.session;
      const { rows } = await deps.pool.query<{ email: string }>('select email from users where id = $1', [session?.accountId ?? null]);
      const scopes = String(interaction.params['scope'] ?? '').split(' ').filter(Boolean);
      sendPage(res, 200, consentPage(`${base}/confirm`, { clientName: await clientName(interaction), scopes, email: rows[0]?.email ?? '' }));
    }),
  );

  router.post(
    '/oauth/interaction/:uid/login',
    form,
    wrap(async (req, res) => {
      const interaction = await details(req, res);
      if (!interaction) return;
      const action = `/oauth/interaction/${interaction.uid}/login`;
      const body = (req.body ?? {}) as Record<string, unknown>;
      const email = typeof body['email'] === 'string' && isStorableText(body['email']) ? users.normalizeEmail(body['email']).slice(0, 320) : '';
      const password = typeof body['password'] === 'string' ? body['password'].slice(0, 1024) : '';
      const name = await clientName(interaction);
      const { limits } = deps;
      const accountKey = `sign-in:account:${email}`;
      const addressKey = `sign-in:address:${deps.clientAddress(req)}`;

      // Every attempt is counted before the password is looked at, so a burst of parallel
      // guesses is refused like a sequence; known and unknown addresses alike.
      const [account, address] = await Promise.all([
        deps.rateLimiter.hit(accountKey, limits.maxFailuresPerAccount, limits.failureWindowSeconds),
        deps.rateLimiter.hit(addressKey, limits.maxFailuresPerAddress, limits.failureWindowSeconds),
      ]);
      if (account.blocked || address.blocked) {
        const wait = Math.max(account.blocked ? account.retryAfterSeconds : 0, address.blocked ? address.retryAfterSeconds : 0);
        deps.logger.warn('sign-in refused: too many failures', { account: account.blocked, address: address.blocked });
        sendPage(res, 429, signInPage(action, { email, clientName: name, error: `Too many failed sign-ins. Try again in ${Math.ceil(wait / 60)} minute(s).` }), { 'Retry-After': String(wait) });
        return;
      }

      const user = email && password ? await checkCredentials(deps.pool, email, password) : null;
      if (!user) {
        sendPage(res, 401, signInPage(action, { email, clientName: name, error: sameAnswer }));
        return;
      }

      // A success is no failure: it clears the account's count and takes itself off the address's.
      await deps.rateLimiter.forgive(addressKey);
      await deps.rateLimiter.reset(accountKey);
      const session = await deps.sessions.create(user.id, req.headers['user-agent']);
      await recordSignIn(deps.eventStore, user.id, 'password');
      // interactionResult, not interactionFinished: the latter writes the response itself
      // and would drop the session cookie set here.
      const returnTo = await provider.interactionResult(req, res, { login: { accountId: user.id } }, { mergeWithLastSubmission: false });
      res.append('Set-Cookie', serializeSessionCookie(deps.cookie, session.value, session.maxAgeSeconds));
      res.redirect(303, returnTo);
    }),
  );

  router.post(
    '/oauth/interaction/:uid/confirm',
    form,
    wrap(async (req, res) => {
      const interaction = await details(req, res);
      if (!interaction) return;
      const decision = ((req.body ?? {}) as Record<string, unknown>)['decision'];
      if (interaction.prompt.name !== 'consent' || decision !== 'approve') {
        await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The user denied access.' }, { mergeWithLastSubmission: false });
        return;
      }
      const accountId = interaction.session?.accountId;
      const clientId = String(interaction.params['client_id'] ?? '');
      const grant = interaction.grantId ? await provider.Grant.find(interaction.grantId) : new provider.Grant({ accountId: accountId ?? '', clientId });
      if (!grant) throw new Error('grant of the interaction not found');
      const missing = interaction.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(resource, scopes.join(' '));
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    }),
  );

  return router;
}
