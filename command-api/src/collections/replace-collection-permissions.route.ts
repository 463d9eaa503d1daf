import { collections, lackedPermissions, permissionBits } from '@cairn/domain';
import { replaceCollectionPermissions } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { collectionEntries, collectionPermissionEntries } from '@cairn/projections';
import { fieldErrors } from '../assets/asset-access.ts';
import { knownEntries } from '../assets/permission-entries.ts';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { callerOf, openCollectionFor } from './collection-access.ts';

export const replaceCollectionPermissionsRoute = (deps: CommandDeps) =>
  implement(replaceCollectionPermissions, async ({ params, body, context, req }) => {
    const caller = callerOf(context);
    const id = params['id'] as collections.CollectionId;
    const { collection } = await openCollectionFor(deps, id, caller, req);
    if (!caller.isSystemAdmin && (collection.effective_flags & permissionBits.MANAGE) === 0) throw httpErrors.forbidden(lackedPermissions(['MANAGE'], 'the collection'));
    const entries = await knownEntries(deps.db, body.permissions, caller, { where: collectionEntries, ids: [id] });
    return runCommand(
      deps,
      context,
      { decider: collections.collectionDecider, stream: collections.collectionStream(id), command: { type: 'ReplaceCollectionPermissions', id, entries, flags: collection.effective_flags }, onError: fieldErrors },
      { status: 200, read: () => collectionPermissionEntries(deps.db, id, caller), present: (entries) => entries },
    );
  });
