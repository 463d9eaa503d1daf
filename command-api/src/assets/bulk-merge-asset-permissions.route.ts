import { assets, permissionBits } from '@cairn/domain';
import { bulkMergeAssetPermissions } from '@cairn/contract';
import { comparePositions, executeCommands, implement, type GlobalPosition } from '@cairn/platform';
import { assetEntries, openAssets } from '@cairn/projections';
import { awaitReadModels, commandContext, commandMetadata, type CommandDeps } from '../deps.ts';
import { callerOf, fieldErrors } from './asset-access.ts';
import { knownEntries } from './permission-entries.ts';

/**
 * All or nothing (docs/assets.md): every asset is checked before anything is written, and
 * the events of all of them are appended in one transaction.
 */
export const bulkMergeAssetPermissionsRoute = (deps: CommandDeps) =>
  implement(bulkMergeAssetPermissions, async ({ body, context, req }) => {
    const caller = callerOf(context);
    // The order of the single-asset routes: visibility, the owning projects' restriction, then the flag.
    const standing = await openAssets(deps, body.asset_ids, caller, req);
    const { ids } = standing;
    for (const id of ids) if (((standing.assets.get(id)?.flags ?? 0) & permissionBits.MANAGE) === 0) throw assets.assetErrors.lacks('MANAGE');
    const entries = await knownEntries(deps.db, body.permissions, caller, { where: assetEntries, ids });
    const authorityOf = (id: string): assets.AssetAuthority => ({ principals: standing.principals, inheritedFlags: standing.assets.get(id)?.inheritedFlags ?? 0 });
    // A retry under an Idempotency-Key whose first attempt was stored: all of it was (one transaction).
    const stored = [...(context.idempotency?.committed.values() ?? [])];
    const outcome = stored.length > 0 ? replayedMerge(stored) : await executeCommands(
      deps.eventStore,
      assets.assetDecider,
      ids.map((id) => ({ streamId: assets.assetStream(id), command: { type: 'MergeAssetPermissions', id: id as assets.AssetId, authority: authorityOf(id), entries } as const })),
      commandContext(context),
      commandMetadata(context),
    ).catch(fieldErrors);
    await awaitReadModels(deps, outcome.position, outcome.events.map((e) => e.type));
    return { status: 204, position: outcome.position };
  });

function replayedMerge(stored: readonly { events: readonly { type: string; data: unknown }[]; position: GlobalPosition }[]) {
  const positions = stored.map((s) => s.position).sort(comparePositions);
  return { events: stored.flatMap((s) => s.events), position: positions.at(-1) ?? null };
}
