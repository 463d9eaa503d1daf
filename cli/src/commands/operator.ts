import { randomUUID } from 'node:crypto';
import { isUuid, operatorActor, users, type CommandContext } from '@cairn/domain';
import type { CommandMetadata } from '@cairn/platform';
import { catchUpTo } from '@cairn/projections';
import type { Resources } from '../runtime/resources.ts';
import { UsageError } from './args.ts';

export function operatorContext(): CommandContext {
  return { actor: operatorActor, now: new Date().toISOString() };
}

export function operatorMetadata(command: string): CommandMetadata {
  const id = randomUUID();
  return { requestId: id, correlationId: id, causationId: `cli:${command}` };
}

/** A user id or an e-mail address, resolved from the event log (no read model needed). */
export async function resolveUserId(resources: Resources, idOrEmail: string): Promise<string> {
  if (isUuid(idOrEmail)) {
    const stream = await resources.eventStore.readStream(users.userStream(idOrEmail.toLowerCase()));
    if (stream.version === 0) throw new UsageError(`no user with id ${idOrEmail}`);
    return idOrEmail.toLowerCase();
  }
  const reservation = await resources.eventStore.readStream(users.userEmailStream(idOrEmail));
  const last = reservation.events.at(-1)?.data as { userId?: string } | undefined;
  if (!last?.userId) throw new UsageError(`no user with e-mail ${idOrEmail}`);
  return last.userId;
}

/**
 * Brings every read model up to the newest committed event (this command's own writes
 * included) before the command answers, so what it printed can be used against the API at
 * once. Safe beside a running projector: batches serialize on the checkpoint row.
 */
export async function catchUpReadModels(resources: Resources): Promise<void> {
  const target = await resources.eventStore.headPosition();
  // Inline read models committed with the writes; only the async ones may be behind.
  for (const projection of resources.projections.async) {
    const outcome = await catchUpTo(resources, projection, target);
    // The write stands, but the caller must know its read model is stopped.
    if (outcome === 'stopped') throw new Error(`the ${projection.name} projection is stopped; see cairn projections status`);
  }
}
