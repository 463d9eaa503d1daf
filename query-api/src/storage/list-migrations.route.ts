import { listMigrations } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { listMigrations as readMigrations, presentMigration } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';
import { openForRead } from './content-gate.ts';

/** Interface 4.3: the history, for whoever sees the asset (READ_METADATA). */
export const listMigrationsRoute = (deps: QueryDeps) =>
  implement(listMigrations, async ({ params, context, req }) => {
    const { asset } = await openForRead(deps, params['id'] ?? '', context.caller, req, 'READ_METADATA');
    return { status: 200, body: (await readMigrations(deps.db, asset.id)).map(presentMigration) };
  });
