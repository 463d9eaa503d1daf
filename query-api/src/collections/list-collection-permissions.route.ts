import { lackedPermissions, permissionBits } from '@cairn/domain';
import { listCollectionPermissions } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { collectionPermissionEntries } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';
import { openCollection } from './open-collection.ts';

export const listCollectionPermissionsRoute = (deps: QueryDeps) =>
  implement(listCollectionPermissions, async ({ params, context, req }) => {
    const { caller, collection } = await openCollection(deps, params['id'] ?? '', context.caller, req);
    if (!caller.isSystemAdmin && (collection.effective_flags & permissionBits.MANAGE) === 0) throw httpErrors.forbidden(lackedPermissions(['MANAGE'], 'the collection'));
    return { status: 200, body: await collectionPermissionEntries(deps.db, collection.id, caller) };
  });
