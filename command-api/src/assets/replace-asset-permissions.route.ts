import { assets, permissionBits } from '@cairn/domain';
import { replaceAssetPermissions } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { assetEntries, permissionEntries } from '@cairn/projections';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';
import { fieldErrors, openAssetFor } from './asset-access.ts';
import { knownEntries } from './permission-entries.ts';

export const replaceAssetPermissionsRoute = (deps: CommandDeps) =>
  implement(replaceAssetPermissions, async ({ params, body, context, req }) => {
    const id = params['id'] as assets.AssetId;
    const { caller, authority, open } = await openAssetFor(deps, id, context, req);
    // Who may not manage learns that before anything in the body is looked up.
    if (!context.caller?.isSystemAdmin && (open.asset.flags & permissionBits.MANAGE) === 0) throw assets.assetErrors.lacks('MANAGE');
    const entries = await knownEntries(deps.db, body.permissions, caller, { where: assetEntries, ids: [id] });
    return runCommand(
      deps,
      context,
      { decider: assets.assetDecider, stream: assets.assetStream(id), command: { type: 'ReplaceAssetPermissions', id, authority, entries }, onError: fieldErrors },
      { status: 200, read: async () => (await permissionEntries(deps.db, [id], caller)).get(id), present: (entries) => entries },
    );
  });
