import { assets, collections, permissionBits } from '@cairn/domain';
import { createCollection } from '@cairn/contract';
import { httpErrors, implement, newId } from '@cairn/platform';
import { collectionStanding, enforceProjectRestriction, findProjectRecord, ownerExists, principalsOf } from '@cairn/projections';
import { fieldErrors } from '../assets/asset-access.ts';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { callerOf, checkPreferredRepository, ensureUserRoot, readBackCollection, underTreeLock } from './collection-access.ts';

// Unknown, hidden, or not one the caller may create for: one answer (DECISIONS.md 1, docs/http.md).
const unknownOwner = () => httpErrors.unknownReference('owner_id', 'The owner was not found.');
const unknownParent = () => httpErrors.unknownReference('parent_id', 'The parent collection was not found.');

export const createCollectionRoute = (deps: CommandDeps) =>
  implement(createCollection, async ({ body, context, req }) => {
    const caller = callerOf(context);
    const ownerType = body.owner_type ?? 'user';
    const ownerId = body.owner_id?.toLowerCase() ?? (ownerType === 'user' ? caller.userId : undefined);
    if (ownerId === undefined) throw httpErrors.validation({ owner_id: ['Name the project that owns the collection.'] });
    const principals = await principalsOf(deps.db, caller.userId);
    let rootOf: () => Promise<string>;
    if (ownerType === 'user') {
      if (ownerId !== caller.userId && !(caller.isSystemAdmin && (await ownerExists(deps.db, 'user', ownerId)))) throw unknownOwner();
      // Made at registration; a user registered before roots existed gets one on first need.
      rootOf = () => ensureUserRoot(deps, context, ownerId);
    } else {
      const project = await findProjectRecord(deps.db, ownerId, caller.userId);
      if (!project || (!caller.isSystemAdmin && !principals.includes(assets.principal.projectMember(ownerId)))) throw unknownOwner();
      await enforceProjectRestriction(deps, ownerId, caller, req);
      rootOf = async () => project.root_collection_id;
    }
    await checkPreferredRepository(deps, body.preferred_repository_id);
    const parentId = body.parent_id?.toLowerCase() ?? (await rootOf());
    // Under the tree's lock: the parent cannot be deleted between reading it and creating under it.
    return underTreeLock(deps, async () => {
      const parent = (await collectionStanding(deps.db, parentId, caller)).collection;
      if (!parent || (!caller.isSystemAdmin && (parent.effective_flags & permissionBits.READ_METADATA) === 0)) throw unknownParent();
      // A collection lives in its owner's tree.
      const parentOwner = parent.owner_type === 'user' ? parent.owner_user_id : parent.owner_project_id;
      if (parent.owner_type !== ownerType || parentOwner !== ownerId) throw httpErrors.validation({ parent_id: ["The parent must be in the owner's tree of collections."] });
      const id = newId(context) as collections.CollectionId;
      const command: collections.CreateCollection = {
        type: 'CreateCollection',
        id,
        details: {
          title: body.title,
          description: body.description,
          alias: body.alias,
          tags: body.tags,
          type: body.type,
          license: body.license,
          preferredRepositoryId: body.preferred_repository_id?.toLowerCase() ?? null,
        },
        owner: { ownerType, ownerId },
        parentId,
        parentFlags: parent.effective_flags,
        authority: { principals, inheritedFlags: 0 },
      };
      return runCommand(
        deps,
        context,
        { decider: collections.collectionDecider, stream: collections.collectionStream(id), command, newStream: true, onError: fieldErrors },
        { status: 201, ...readBackCollection(deps, id, caller), headers: { Location: `/api/collections/${id}/` } },
      );
    });
  });
