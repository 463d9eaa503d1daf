import { randomUUID } from 'node:crypto';
import type { UserId } from '@cairn/domain';
import { newUserAllocation } from '@cairn/command-api';
import { hashPassword, registerUser } from '@cairn/platform';
import type { Resources } from '../runtime/resources.ts';
import { parseOptions, requireOption } from './args.ts';
import { catchUpReadModels, operatorContext, operatorMetadata } from './operator.ts';

/** `cairn users create --email E --name N [--password P] [--system-admin]` */
export async function usersCreate(resources: Resources, args: readonly string[]) {
  const { values } = parseOptions(args, {
    email: { type: 'string' },
    name: { type: 'string' },
    password: { type: 'string' },
    'system-admin': { type: 'boolean' },
  });
  const email = requireOption(values.email, 'email');
  const name = requireOption(values.name, 'name');
  const id = randomUUID() as UserId;
  // One registration path for every entry point: the address, the user, then its
  // enrollment in the system access history (platform/src/commands/register-user.ts).
  // With the default allocation the configuration grants new users (docs/storage.md).
  const allocation = await newUserAllocation(resources.db, resources.config.storage.defaultAllocation)();
  await registerUser(resources.eventStore, { id, email, name, isSystemAdmin: values['system-admin'] === true }, operatorContext(), operatorMetadata('users create'), { allocation });
  if (typeof values.password === 'string') {
    await resources.pool.query(
      'insert into user_credentials (user_id, password_hash) values ($1, $2) on conflict (user_id) do update set password_hash = excluded.password_hash, updated_at = now()',
      [id, await hashPassword(values.password)],
    );
  }
  await catchUpReadModels(resources);
  return { id };
}
