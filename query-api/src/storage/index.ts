import type { BoundOperation } from '@cairn/platform';
import type { QueryDeps } from '../deps.ts';
import { downloadContentRoute } from './download-content.route.ts';
import { getAllocationRoute } from './get-allocation.route.ts';
import { getContentRoute } from './get-content.route.ts';
import { getLocationRoute } from './get-location.route.ts';
import { getMigrationRoute } from './get-migration.route.ts';
import { getUploadRoute } from './get-upload.route.ts';
import { listAllocationsRoute } from './list-allocations.route.ts';
import { listContentsRoute } from './list-contents.route.ts';
import { listMigrationsRoute } from './list-migrations.route.ts';
import { listRepositoriesRoute } from './list-repositories.route.ts';

export function storageQueryRoutes(deps: QueryDeps): BoundOperation[] {
  return [
    listRepositoriesRoute(deps),
    listAllocationsRoute(deps),
    getAllocationRoute(deps),
    listContentsRoute(deps),
    getContentRoute(deps),
    getLocationRoute(deps),
    downloadContentRoute(deps),
    listMigrationsRoute(deps),
    getMigrationRoute(deps),
    getUploadRoute(deps),
  ];
}
