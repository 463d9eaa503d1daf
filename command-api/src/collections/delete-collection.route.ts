import { collections } from '@cairn/domain';
import { deleteCollection } from '@cairn/contract';
import { executeCommands, implement } from '@cairn/platform';
import { collectionIsEmpty, subtreeIds } from '@cairn/projections';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { callerOf, openCollectionFor, underTreeLock } from './collection-access.ts';

/**
 * A recursive deletion deletes the whole subtree in one atomic append. Its assets are
 * detached by it, not deleted: a collection that no longer exists holds nothing, gives
 * nothing, and is left out of every asset's `collection_ids` (docs/collections.md).
 */
export const deleteCollectionRoute = (deps: CommandDeps) =>
  implement(deleteCollection, async ({ params, query, context, req }) => {
    const caller = callerOf(context);
    const id = params['id'] as collections.CollectionId;
    const { collection } = await openCollectionFor(deps, id, caller, req);
    const recursive = query.recursive === true;
    // Under the tree's lock: no move or create lands in the subtree between reading it and deleting it.
    return underTreeLock(deps, async () => {
      const empty = await collectionIsEmpty(deps.db, id);
      const below = recursive && !empty ? (await subtreeIds(deps.db, id)).filter((c) => c !== id) : [];
      const outcome = await executeCommands(
        deps.eventStore,
        collections.collectionDecider,
        [
          { streamId: collections.collectionStream(id), command: { type: 'DeleteCollection', id, flags: collection.effective_flags, cascaded: false, recursive, empty } as const },
          ...below.map((c) => ({
            streamId: collections.collectionStream(c),
            command: { type: 'DeleteCollection', id: c as collections.CollectionId, flags: 0, cascaded: true, recursive: true, empty: false } as const,
          })),
        ],
        commandContext(context),
        commandMetadata(context),
      );
      await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
      return { status: 204, position: outcome.position };
    });
  });
