import { getCurrentSession } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';

export const currentSessionRoute = () =>
  implement(getCurrentSession, async ({ context }) => {
    const caller = context.caller;
    if (!caller) throw httpErrors.unauthenticated();
    return {
      status: 200,
      body: { user_id: caller.userId, email: caller.email, is_system_admin: caller.isSystemAdmin, authenticated_by: caller.via, scopes: [...caller.scopes].sort() },
    };
  });
