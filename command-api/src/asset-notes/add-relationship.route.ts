import { assetRelationships, DomainError } from '@cairn/domain';
import { addRelationship } from '@cairn/contract';
import { httpErrors, implement, newId } from '@cairn/platform';
import { findRelationship, presentRelationship } from '@cairn/projections';
import { openAssetFor } from '../assets/asset-access.ts';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { targetReadable } from './target-readable.ts';

/**
 * The source asset was opened (404 when hidden) before the decider runs, so the only thing
 * it can find missing is the target: 404 naming `to_asset_id` (DECISIONS.md 1).
 */
function unknownTarget(error: unknown): never {
  if (error instanceof DomainError && error.kind === 'not_found') throw httpErrors.unknownReference('to_asset_id', 'Asset not found.');
  throw error;
}

export const addRelationshipRoute = (deps: CommandDeps) =>
  implement(addRelationship, async ({ params, body, context, req }) => {
    const { caller, open } = await openAssetFor(deps, params['id'] ?? '', context, req);
    const fromAssetId = open.asset.id;
    const toAssetId = body.to_asset_id.toLowerCase();
    const id = newId(context);
    return runCommand(
      deps,
      context,
      {
        decider: assetRelationships.relationshipDecider,
        stream: assetRelationships.relationshipsStream(fromAssetId),
        command: {
          type: 'AddRelationship',
          id,
          fromAssetId,
          toAssetId,
          relationshipType: body.relationship_type,
          access: { flags: open.asset.flags, locked: open.asset.isLocked },
          targetReadable: toAssetId === fromAssetId || (await targetReadable(deps, toAssetId, caller, req)),
        },
        onError: unknownTarget,
      },
      { status: 201, read: () => findRelationship(deps.db, fromAssetId, id), present: presentRelationship, headers: { Location: `/api/assets/${fromAssetId}/relationships/${id}/` } },
    );
  });
