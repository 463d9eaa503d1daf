import { assets, storage } from '@cairn/domain';
import { startMigration } from '@cairn/contract';
import { httpErrors, implement, newId } from '@cairn/platform';
import { findMigration, findRepository, listContents, payingAllocation, presentMigration } from '@cairn/projections';
import { fieldErrors, openAssetFor } from '../assets/asset-access.ts';
import type { CommandDeps } from '../deps.ts';
import { runCommand } from '../run-command.ts';

/**
 * DECISIONS.md 4: starts a migration (WRITE_CONTENT; 423 when locked; 409 while another is
 * under way). The owner needs an allocation on the target with room for what moves; the
 * worker charges it object by object (docs/storage.md).
 */
export const startMigrationRoute = (deps: CommandDeps) =>
  implement(startMigration, async ({ params, body, context, req }) => {
    const { open, authority } = await openAssetFor(deps, params['id'] ?? '', context, req);
    const id = open.asset.id as assets.AssetId;
    const targetRepositoryId = body.target_repository_id.toLowerCase();
    if (!(await findRepository(deps.db, targetRepositoryId))) throw httpErrors.unknownReference('target_repository_id', 'The repository was not found.');
    const contents = await listContents(deps.db, id);
    const moving = contents.filter((c) => c.repository_id !== targetRepositoryId);
    if (contents.length > 0 && moving.length === 0) throw fieldErrors(assets.migrationErrors.sameRepository());
    const owner = { ownerType: open.asset.ownerType, ownerId: open.asset.ownerId };
    const target = await payingAllocation(deps.db, owner, targetRepositoryId);
    if (moving.length > 0 && !target) throw storage.contentErrors.noAllocation();
    const bytes = moving.reduce((sum, c) => sum + Number(c.size), 0);
    const room = target ? Number(target.limit_bytes) - Number(target.used_bytes) - Number(target.reserved_bytes) : 0;
    if (moving.length > 0 && bytes > room) throw storage.allocationErrors.exceeded(room);
    const migrationId = newId(context);
    return runCommand(
      deps,
      context,
      {
        decider: assets.assetDecider,
        stream: assets.assetStream(id),
        command: { type: 'StartAssetMigration', id, authority, migrationId, sourceRepositoryId: mostUsed(moving.map((c) => c.repository_id)), targetRepositoryId },
      },
      {
        status: 201,
        read: () => findMigration(deps.db, id, migrationId),
        present: presentMigration,
        notFound: 'Migration not found.',
        headers: { Location: `/api/assets/${id}/migrations/${migrationId}/` },
      },
    );
  });

function mostUsed(ids: readonly string[]): string | null {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? null;
}
