import { getMigration } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { findMigration, presentMigration } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';
import { openForRead } from './content-gate.ts';

/** One migration, for whoever may read the history (READ_METADATA): the `Location` of a start. */
export const getMigrationRoute = (deps: QueryDeps) =>
  implement(getMigration, async ({ params, context, req }) => {
    const { asset } = await openForRead(deps, params['id'] ?? '', context.caller, req, 'READ_METADATA');
    const row = await findMigration(deps.db, asset.id, (params['mid'] ?? '').toLowerCase());
    if (!row) throw httpErrors.notFound('Migration not found.');
    return { status: 200, body: presentMigration(row) };
  });
