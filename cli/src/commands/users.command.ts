import { randomUUID } from 'node:crypto';
import { Command } from '@commander-js/extra-typings';
import type { UserId } from '@cairn/domain';
import { defineCommand, examples, nonEmpty } from '../program/define-command.ts';
import type { Resources } from '../runtime/resources.ts';

/** What these commands run on, loaded when one runs: `cairn --help` loads none of it. */
const load = async () => ({ ...(await import('@cairn/command-api')), ...(await import('@cairn/platform')), ...(await import('./operator.ts')) });


/** `cairn users create --email E --name N [--password P] [--system-admin]` (DECISIONS.md 7) */
export const usersCreateCommand = defineCommand(
  () =>
    new Command('create')
      .summary('create a user; prints {"id"}')
      .description('Registers a user, as sign-up does, recorded in the audit log. Prints {"id": ...}.')
      .requiredOption('--email <address>', 'the e-mail address (required; unique, case-insensitive)', nonEmpty)
      .requiredOption('--name <name>', "the user's display name (required)", nonEmpty)
      .option('--password <password>', 'a password for the sign-in page (default: none; the user signs in upstream or with tokens)')
      .option('--system-admin', 'make the user a system administrator', false)
      .addHelpText('after', examples('cairn users create --email ada@example.org --name "Ada Lovelace" --system-admin')),
  async (resources: Resources, { options }) => {
    const { catchUpReadModels, hashPassword, newUserAllocation, operatorContext, operatorMetadata, registerUser } = await load();
    const id = randomUUID() as UserId;
    // One registration path for every entry point: the address, the user, then its
    // enrollment in the system access history (platform/src/commands/register-user.ts).
    // With the default allocation the configuration grants new users (docs/storage.md).
    const allocation = await newUserAllocation(resources.db, resources.config.storage.defaultAllocation)();
    await registerUser(resources.eventStore, { id, email: options.email, name: options.name, isSystemAdmin: options.systemAdmin }, operatorContext(), operatorMetadata('users create'), { allocation });
    if (options.password !== undefined) {
      await resources.pool.query(
        'insert into user_credentials (user_id, password_hash) values ($1, $2) on conflict (user_id) do update set password_hash = excluded.password_hash, updated_at = now()',
        [id, await hashPassword(options.password)],
      );
    }
    await catchUpReadModels(resources);
    return { id };
  },
);

export const usersCreate = usersCreateCommand.inProcess;
