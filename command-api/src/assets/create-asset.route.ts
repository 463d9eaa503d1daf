import { assets, permissionBits } from '@cairn/domain';
import { createAsset } from '@cairn/contract';
import { httpErrors, implement, type Caller, newId } from '@cairn/platform';
import { collectionFlags, enforceProjectRestriction, ownerExists, principalsOf } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { callerOf, fieldErrors, readBackAsset } from './asset-access.ts';

// Unknown, hidden, or not one the caller may create for: one answer (DECISIONS.md 1, docs/http.md).
const unknownOwner = () => httpErrors.unknownReference('owner_id', 'The owner was not found.');

/**
 * The owner named in the body (default: the caller). One the caller cannot see (a project
 * or organization they are not in, another user) answers like one that does not exist.
 */
async function ownerOf(deps: CommandDeps, caller: Caller, principals: readonly string[], ownerType: assets.OwnerType | undefined, ownerId: string | undefined): Promise<assets.AssetOwner> {
  const type = ownerType ?? 'user';
  const id = ownerId?.toLowerCase() ?? (type === 'user' ? caller.userId : undefined);
  if (id === undefined) throw httpErrors.validation({ owner_id: ['Name the project or organization that owns the asset.'] });
  const visible =
    type === 'user' ? id === caller.userId : principals.includes(type === 'project' ? assets.principal.projectMember(id) : assets.principal.organizationMember(id));
  if (!visible && !(caller.isSystemAdmin && (await ownerExists(deps.db, type, id)))) throw unknownOwner();
  return { ownerType: type, ownerId: id };
}

export const createAssetRoute = (deps: CommandDeps) =>
  implement(createAsset, async ({ body, context, req }) => {
    const caller = callerOf(context);
    const ownsItself = (body.owner_type ?? 'user') === 'user' && (body.owner_id === undefined || body.owner_id.toLowerCase() === caller.userId);
    const collectionId = body.collection_id?.toLowerCase() ?? null;
    // The common case (the caller's own asset, no collection) needs no read before the write.
    const principals = ownsItself && collectionId === null ? [assets.principal.everyone, assets.principal.user(caller.userId)] : await principalsOf(deps.db, caller.userId);
    const owner = await ownerOf(deps, caller, principals, body.owner_type, body.owner_id);
    // Creating for a project is working in it: its geographic restriction applies, as on every route under the project.
    if (owner.ownerType === 'project') await enforceProjectRestriction(deps, owner.ownerId, caller, req);
    let collection: { id: string; flags: number } | null = null;
    if (collectionId !== null) {
      const flags = await collectionFlags(deps.db, collectionId, principals, caller.isSystemAdmin);
      if (flags === null || (flags & permissionBits.READ_METADATA) === 0) throw httpErrors.unknownReference('collection_id', 'The collection was not found.');
      collection = { id: collectionId, flags };
    }
    const id = newId(context) as assets.AssetId;
    const command: assets.CreateAsset = {
      type: 'CreateAsset',
      id,
      authority: { principals, inheritedFlags: 0 },
      details: { title: body.title, alias: body.alias, description: body.description, recordType: body.record_type, tags: body.tags, metadata: body.metadata as assets.JsonObject },
      owner,
      collection,
    };
    return runCommand(
      deps,
      context,
      { decider: assets.assetDecider, stream: assets.assetStream(id), command, newStream: true, onError: fieldErrors },
      { status: 201, ...readBackAsset(deps, id, caller), headers: { Location: `/api/assets/${id}/` } },
    );
  });
