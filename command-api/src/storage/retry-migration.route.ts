import { assets } from '@cairn/domain';
import { retryMigration } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { findMigration, presentMigration } from '@cairn/projections';
import { openAssetFor } from '../assets/asset-access.ts';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';

/** Interface 3: a failed migration becomes pending (200) and a worker takes it up; anything else is 409. */
export const retryMigrationRoute = (deps: CommandDeps) =>
  implement(retryMigration, async ({ params, context, req }) => {
    const { open, authority } = await openAssetFor(deps, params['id'] ?? '', context, req);
    const id = open.asset.id as assets.AssetId;
    const migrationId = params['mid'] ?? '';
    return runCommand(
      deps,
      context,
      { decider: assets.assetDecider, stream: assets.assetStream(id), command: { type: 'RetryAssetMigration', id, authority, migrationId } },
      { status: 200, read: () => findMigration(deps.db, id, migrationId), present: presentMigration, notFound: 'Migration not found.' },
    );
  });
