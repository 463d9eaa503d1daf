import { Command } from '@commander-js/extra-typings';
import type { UserId, users } from '@cairn/domain';
import { defineCommand, examples, wholeNumber } from '../program/define-command.ts';
import type { Resources } from '../runtime/resources.ts';

/** What these commands run on, loaded when one runs: `cairn --help` loads none of it. */
const load = async () => ({ ...(await import('@cairn/domain')), ...(await import('@cairn/platform')), ...(await import('@cairn/projections')), ...(await import('./operator.ts')) });


/** `cairn users list [--query Q] [--include-deactivated] [--limit N] [--offset N]`: the admin user list's records. */
export const usersListCommand = defineCommand(
  () =>
    new Command('list')
      .summary('list users; prints {"count", "users"}')
      .description('Lists users ordered by name, with their organizations, as GET /api/admin/users/ does. Prints {"count": N, "users": [...]} (count: all that match).')
      .option('--query <text>', 'only users whose name or e-mail address contains this (case-insensitive)')
      .option('--include-deactivated', 'list deactivated users too', false)
      .option('--limit <n>', 'at most this many users', wholeNumber(1), 100)
      .option('--offset <n>', 'skip this many users first', wholeNumber(0), 0)
      .addHelpText('after', examples('cairn users list', 'cairn users list --query example.org --include-deactivated')),
  async (resources: Resources, { options }) => {
    const { listAdminUsers, presentAdminUser } = await load();
    const { count, users: found } = await listAdminUsers(resources.db, { q: options.query, includeDeactivated: options.includeDeactivated, limit: options.limit, offset: options.offset });
    return { count, users: found.map(presentAdminUser) };
  },
);

/**
 * Deactivating and reactivating go through the same decision as PATCH /api/admin/users/{id}/
 * (the system access stream), so the last-administrator guard refuses here too, and each
 * change is in the audit log with the command that made it.
 */
async function changeAccess(resources: Resources, user: string, isActive: boolean) {
  const { catchUpReadModels, executeCommand, findAdminUser, operatorContext, operatorMetadata, presentAdminUser, resolveUserId, systemAccess, users } = await load();
  const userId = (await resolveUserId(resources, user)) as UserId;
  const registered = (await resources.eventStore.readStream(users.userStream(userId))).events.find((e) => e.type === 'UserRegistered');
  const registeredAsSystemAdmin = (registered?.data as users.UserRegistered['data'] | undefined)?.isSystemAdmin === true;
  await executeCommand(
    resources.eventStore,
    systemAccess.systemAccessDecider,
    systemAccess.systemAccessStream,
    { type: 'ChangeUserAccess', userId, registeredAsSystemAdmin, isActive },
    operatorContext(),
    operatorMetadata(isActive ? 'users activate' : 'users deactivate'),
  );
  await catchUpReadModels(resources);
  const record = await findAdminUser(resources.db, userId);
  if (!record) throw new Error(`the user ${userId} is not in the read model yet; see cairn projections status`);
  return presentAdminUser(record);
}

export const usersDeactivateCommand = defineCommand(
  () =>
    new Command('deactivate')
      .summary('deactivate a user; prints the user')
      .description(
        'Deactivates a user: their tokens and sessions are refused at once (they are not revoked: activating the user again lets unexpired ones work). Refused for the last active system administrator. Prints the user as GET /api/admin/users/{id}/ does.',
      )
      .argument('<user>', 'the user: an id or an e-mail address')
      .addHelpText('after', examples('cairn users deactivate ada@example.org')),
  async (resources: Resources, { args: [user] }) => changeAccess(resources, user, false),
);

export const usersActivateCommand = defineCommand(
  () =>
    new Command('activate')
      .summary('activate a deactivated user again; prints the user')
      .description('Activates a deactivated user again. Prints the user as GET /api/admin/users/{id}/ does.')
      .argument('<user>', 'the user: an id or an e-mail address')
      .addHelpText('after', examples('cairn users activate ada@example.org')),
  async (resources: Resources, { args: [user] }) => changeAccess(resources, user, true),
);

export const usersList = usersListCommand.inProcess;
export const usersDeactivate = usersDeactivateCommand.inProcess;
export const usersActivate = usersActivateCommand.inProcess;
