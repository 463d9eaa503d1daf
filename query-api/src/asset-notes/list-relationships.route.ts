import { listRelationships } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { listRelationships as readRelationships, openAsset, presentRelationship } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

export const listRelationshipsRoute = (deps: QueryDeps) =>
  implement(listRelationships, async ({ params, query, context, req }) => {
    const caller = context.caller;
    const { asset } = await openAsset(deps, params['id'] ?? '', caller, req);
    const rows = await readRelationships(deps.db, asset.id, query.direction ?? 'outgoing', caller ?? { userId: '', isSystemAdmin: false });
    return { status: 200, body: rows.map(presentRelationship) };
  });
