import { collections, permissionBits } from '@cairn/domain';
import { updateCollection } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { collectionStanding } from '@cairn/projections';
import { fieldErrors } from '../assets/asset-access.ts';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { callerOf, checkPreferredRepository, ifMatchOf, openCollectionFor, readBackCollection, underTreeLock } from './collection-access.ts';

export const updateCollectionRoute = (deps: CommandDeps) =>
  implement(updateCollection, async ({ params, body, context, req }) => {
    const caller = callerOf(context);
    const id = params['id'] as collections.CollectionId;
    const { collection } = await openCollectionFor(deps, id, caller, req);
    const ifMatch = ifMatchOf(req);
    const changes: { -readonly [K in keyof collections.CollectionDetails]?: collections.CollectionDetails[K] } = {};
    if (body.title !== undefined) changes.title = body.title;
    if (body.description !== undefined) changes.description = body.description;
    if (body.alias !== undefined) changes.alias = body.alias;
    if (body.tags !== undefined) changes.tags = body.tags;
    if (body.type !== undefined) changes.type = body.type;
    if (body.license !== undefined) changes.license = body.license;
    await checkPreferredRepository(deps, body.preferred_repository_id);
    if (body.preferred_repository_id !== undefined) changes.preferredRepositoryId = body.preferred_repository_id?.toLowerCase() ?? null;
    const newParent = body.parent_id?.toLowerCase();
    const answer = { status: 200, ...readBackCollection(deps, id, caller) } as const;
    if (newParent === undefined || newParent === collection.parent_id) {
      return runCommand(
        deps,
        context,
        { decider: collections.collectionDecider, stream: collections.collectionStream(id), command: { type: 'ChangeCollection', id, changes, flags: collection.effective_flags, ifMatch }, onError: fieldErrors },
        answer,
      );
    }
    if (Object.keys(changes).length > 0) throw httpErrors.validation({ parent_id: ['Move a collection on its own: send parent_id without other fields.'] });
    return underTreeLock(deps, async () => {
      const parent = (await collectionStanding(deps.db, newParent, caller)).collection;
      if (!parent || (!caller.isSystemAdmin && (parent.effective_flags & permissionBits.READ_METADATA) === 0)) throw httpErrors.unknownReference('parent_id', 'The parent collection was not found.');
      const sameTree = parent.owner_type === collection.owner_type && parent.owner_user_id === collection.owner_user_id && parent.owner_project_id === collection.owner_project_id;
      if (!sameTree) throw httpErrors.validation({ parent_id: ["The new parent must be in the same owner's tree of collections."] });
      return runCommand(
        deps,
        context,
        {
          decider: collections.collectionDecider,
          stream: collections.collectionStream(id),
          command: { type: 'MoveCollection', id, parentId: newParent, parentAncestors: parent.parent_ids, flags: collection.effective_flags, parentFlags: parent.effective_flags, ifMatch },
        },
        answer,
      );
    });
  });
