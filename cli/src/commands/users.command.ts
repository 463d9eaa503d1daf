import { randomUUID } from 'node:crypto';
import { users, type UserId } from '@cairn/domain';
import { executeCommand, hashPassword } from '@cairn/platform';
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
  const metadata = operatorMetadata('users create');
  const context = operatorContext();
  // The address is claimed first, on its own stream, so two users can never share one.
  await executeCommand(resources.eventStore, users.userEmailDecider, users.userEmailStream(email), { type: 'ReserveUserEmail', email, userId: id }, context, metadata);
  await executeCommand(
    resources.eventStore,
    users.userDecider,
    users.userStream(id),
    { type: 'RegisterUser', id, email, name, isSystemAdmin: values['system-admin'] === true },
    context,
    metadata,
  );
  if (typeof values.password === 'string') {
    await resources.pool.query(
      'insert into user_credentials (user_id, password_hash) values ($1, $2) on conflict (user_id) do update set password_hash = excluded.password_hash, updated_at = now()',
      [id, await hashPassword(values.password)],
    );
  }
  await catchUpReadModels(resources);
  return { id };
}
