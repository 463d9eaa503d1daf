import { assetRelationships } from '@cairn/domain';
import { addRelationship } from '@cairn/contract';
import { implement, newId } from '@cairn/platform';
import { findRelationship, presentRelationship } from '@cairn/projections';
import { openAssetFor } from '../assets/asset-access.ts';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { targetReadable } from './target-readable.ts';

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
      },
      { status: 201, read: () => findRelationship(deps.db, fromAssetId, id), present: presentRelationship, headers: { Location: `/api/assets/${fromAssetId}/relationships/${id}/` } },
    );
  });
