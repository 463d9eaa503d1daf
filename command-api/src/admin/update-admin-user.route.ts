import { systemAccess, type UserId } from '@cairn/domain';
import { updateAdminUser } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { findAdminUser, presentAdminUser } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { findRegistration, requireSystemAdmin } from './system-admin-only.ts';

/** Interface 3 and 4.1: the last-administrator guard is the domain's, on the system access history. */
export const updateAdminUserRoute = (deps: CommandDeps) =>
  implement(updateAdminUser, async ({ params, body, context }) => {
    requireSystemAdmin(context);
    const userId = params['id'] as UserId;
    const registration = await findRegistration(deps.eventStore, userId);
    if (!registration) throw httpErrors.notFound('User not found.');
    return runCommand(
      deps,
      context,
      {
        decider: systemAccess.systemAccessDecider,
        stream: systemAccess.systemAccessStream,
        command: { type: 'ChangeUserAccess', userId, registeredAsSystemAdmin: registration.isSystemAdmin, isActive: body.is_active, isSystemAdmin: body.is_system_admin },
      },
      { status: 200, read: () => findAdminUser(deps.db, userId), present: presentAdminUser, notFound: 'User not found.' },
    );
  });
