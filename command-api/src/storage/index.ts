import type { BoundOperation } from '@cairn/platform';
import type { CommandDeps } from '../deps.ts';
import { addContentRoute } from './add-content.route.ts';
import { createAllocationRoute } from './create-allocation.route.ts';
import { deleteAllocationRoute } from './delete-allocation.route.ts';
import { deleteContentRoute } from './delete-content.route.ts';
import { extractMetadataRoute } from './extract-metadata.route.ts';
import { makeDefaultAllocationRoute } from './make-default-allocation.route.ts';
import { retryMigrationRoute } from './retry-migration.route.ts';
import { startMigrationRoute } from './start-migration.route.ts';
import { updateAllocationRoute } from './update-allocation.route.ts';
import { uploadCommandRoutes } from './uploads/index.ts';

export function storageCommandRoutes(deps: CommandDeps): BoundOperation[] {
  return [
    createAllocationRoute(deps),
    updateAllocationRoute(deps),
    deleteAllocationRoute(deps),
    makeDefaultAllocationRoute(deps),
    addContentRoute(deps),
    deleteContentRoute(deps),
    extractMetadataRoute(deps),
    startMigrationRoute(deps),
    retryMigrationRoute(deps),
    ...uploadCommandRoutes(deps),
  ];
}
