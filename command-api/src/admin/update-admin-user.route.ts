import { systemAccess, type UserId } from '@cairn/domain';
import { updateAdminUser } from '@cairn/contract';
import { executeCommand, httpErrors, implement } from '@cairn/platform';
import { findAdminUser, presentAdminUser } from '@cairn/projections';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { findRegistration, requireSystemAdmin } from './system-admin-only.ts';

/** Interface 3 and 4.1: the last-administrator guard is the domain's, on the system access history. */
export const updateAdminUserRoute = (deps: CommandDeps) =>
  implement(updateAdminUser, async ({ params, body, context }) => {
    requireSystemAdmin(context);
    const userId = params['id'] as UserId;
    const registration = await findRegistration(deps.eventStore, userId);
    if (!registration) throw httpErrors.notFound('User not found.');
    const outcome = await executeCommand(
      deps.eventStore,
      systemAccess.systemAccessDecider,
      systemAccess.systemAccessStream,
      { type: 'ChangeUserAccess', userId, registeredAsSystemAdmin: registration.isSystemAdmin, isActive: body.is_active, isSystemAdmin: body.is_system_admin },
      commandContext(context),
      commandMetadata(context),
    );
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    const record = await findAdminUser(deps.db, userId);
    if (!record) throw httpErrors.notFound('User not found.');
    return { status: 200, body: presentAdminUser(record), position: outcome.position };
  });
