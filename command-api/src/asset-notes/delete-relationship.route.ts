import { assetRelationships } from '@cairn/domain';
import { deleteRelationship } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { openAssetFor } from '../assets/asset-access.ts';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';

export const deleteRelationshipRoute = (deps: CommandDeps) =>
  implement(deleteRelationship, async ({ params, context, req }) => {
    const { open } = await openAssetFor(deps, params['id'] ?? '', context, req);
    const fromAssetId = open.asset.id;
    return runCommand(
      deps,
      context,
      {
        decider: assetRelationships.relationshipDecider,
        stream: assetRelationships.relationshipsStream(fromAssetId),
        command: { type: 'RemoveRelationship', id: params['rel_id'] ?? '', fromAssetId, access: { flags: open.asset.flags, locked: open.asset.isLocked } },
      },
      { status: 204 },
    );
  });
