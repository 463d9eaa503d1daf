import { randomUUID } from 'node:crypto';
import { operatorActor, users, type UserId } from '@cairn/domain';
import { messagePage, pageSecurityHeaders, registerUser, serializeSessionCookie } from '@cairn/platform';
import { randomNonce, randomPKCECodeVerifier, randomState } from 'openid-client';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { recordSignIn } from './record-sign-in.ts';
import type { SignInDeps } from './sign-in.deps.ts';

const wrap = (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => {
  fn(req, res).catch(next);
};

const refuse = (res: Response, status: number, message: string) => {
  res.status(status).set(pageSecurityHeaders).type('html').send(messagePage('Sign-in failed', message));
};

/**
 * Sign-in delegated to the upstream provider: out from the sign-in page, back on a fixed
 * callback (the address registered there), then to the interaction again, where the
 * interaction's cookie is sent, to finish it. Users are matched by verified e-mail, or
 * created when the deployment allows.
 */
export function upstreamRoutes(deps: SignInDeps): Router {
  const router = express.Router();
  const upstream = deps.upstream;
  if (!upstream) return router;
  const { provider } = deps.oauth;
  const callbackUri = `${deps.publicUrl}/oauth/upstream/callback`;

  router.get(
    '/oauth/interaction/:uid/upstream',
    wrap(async (req, res) => {
      const interaction = await provider.interactionDetails(req, res).catch(() => null);
      if (!interaction) return refuse(res, 400, 'This sign-in has expired. Start again from the application.');
      const checks = { state: randomState(), nonce: randomNonce(), codeVerifier: randomPKCECodeVerifier() };
      await deps.pool.query(
        "insert into upstream_sign_ins (state, interaction_uid, code_verifier, nonce, expires_at) values ($1, $2, $3, $4, now() + interval '10 minutes')",
        [checks.state, interaction.uid, checks.codeVerifier, checks.nonce],
      );
      res.redirect(303, (await upstream.authorizationUrl(callbackUri, checks)).href);
    }),
  );

  router.get(
    '/oauth/upstream/callback',
    wrap(async (req, res) => {
      const state = typeof req.query['state'] === 'string' ? req.query['state'] : '';
      const { rows } = await deps.pool.query<{ interaction_uid: string; code_verifier: string; nonce: string }>(
        'select interaction_uid, code_verifier, nonce from upstream_sign_ins where state = $1 and user_id is null and expires_at > now()',
        [state],
      );
      const pending = rows[0];
      if (!pending) return refuse(res, 400, 'This sign-in has expired. Start again from the application.');
      const currentUrl = new URL(req.originalUrl, deps.publicUrl);
      const identity = await upstream.verifiedEmail(currentUrl, { state, nonce: pending.nonce, codeVerifier: pending.code_verifier }).catch((error: unknown) => {
        deps.logger.warn('upstream sign-in refused', { error: error instanceof Error ? error.message : String(error) });
        return null;
      });
      if (!identity) return refuse(res, 403, `${upstream.name} did not confirm a verified e-mail address.`);

      const email = users.normalizeEmail(identity.email);
      const { rows: found } = await deps.pool.query<{ id: string; is_active: boolean }>('select id, is_active from users where email = $1', [email]);
      let userId = found[0]?.is_active ? found[0].id : null;
      if (!found[0]) {
        if (!upstream.createUsers) return refuse(res, 403, 'There is no account for this e-mail address.');
        const id = randomUUID() as UserId;
        const requestId = randomUUID();
        const position = await registerUser(
          deps.eventStore,
          { id, email, name: identity.name.slice(0, 255), isSystemAdmin: false },
          { actor: operatorActor, now: new Date().toISOString() },
          { requestId, correlationId: requestId, causationId: 'upstream-sign-in' },
          { allocation: await deps.newUserAllocation() },
        );
        await deps.awaitUsers(position);
        userId = id;
      }
      if (!userId) return refuse(res, 403, 'This account is deactivated.');
      await deps.pool.query('update upstream_sign_ins set user_id = $2 where state = $1', [state, userId]);
      res.redirect(303, `/oauth/interaction/${pending.interaction_uid}/upstream/complete?state=${encodeURIComponent(state)}`);
    }),
  );

  router.get(
    '/oauth/interaction/:uid/upstream/complete',
    wrap(async (req, res) => {
      const interaction = await provider.interactionDetails(req, res).catch(() => null);
      if (!interaction) return refuse(res, 400, 'This sign-in has expired. Start again from the application.');
      const { rows } = await deps.pool.query<{ user_id: string }>(
        'delete from upstream_sign_ins where state = $1 and interaction_uid = $2 and user_id is not null and expires_at > now() returning user_id',
        [String(req.query['state'] ?? ''), interaction.uid],
      );
      const userId = rows[0]?.user_id;
      if (!userId) return refuse(res, 400, 'This sign-in has expired. Start again from the application.');
      const session = await deps.sessions.create(userId, req.headers['user-agent']);
      await recordSignIn(deps.eventStore, userId, 'upstream');
      const returnTo = await provider.interactionResult(req, res, { login: { accountId: userId } }, { mergeWithLastSubmission: false });
      res.append('Set-Cookie', serializeSessionCookie(deps.cookie, session.value, session.maxAgeSeconds));
      res.redirect(303, returnTo);
    }),
  );
  return router;
}
