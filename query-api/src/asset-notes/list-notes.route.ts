import { lackedPermissions, permissionBits } from '@cairn/domain';
import { listNotes } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { listNotes as readNotes, openAsset, presentNote } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

export const listNotesRoute = (deps: QueryDeps) =>
  implement(listNotes, async ({ params, context, req }) => {
    const { asset } = await openAsset(deps, params['id'] ?? '', context.caller, req);
    if ((asset.flags & permissionBits.READ_NOTES) === 0) throw httpErrors.forbidden(lackedPermissions(['READ_NOTES'], 'this asset'));
    return { status: 200, body: (await readNotes(deps.db, asset.id)).map(presentNote) };
  });
