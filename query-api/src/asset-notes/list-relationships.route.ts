import { listRelationships } from '@cairn/contract';
import { implement } from '@cairn/platform';
import { deniedProjectIds, listRelationships as readRelationships, openAsset, presentRelationship } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';

export const listRelationshipsRoute = (deps: QueryDeps) =>
  implement(listRelationships, async ({ params, query, context, req }) => {
    const caller = context.caller;
    const { asset } = await openAsset(deps, params['id'] ?? '', caller, req);
    const viewer = caller ?? { userId: '', isSystemAdmin: false };
    // An other end behind its project's geographic restriction is one the caller may not read (docs/asset-notes.md).
    const denied = caller ? await deniedProjectIds(deps, caller, req) : [];
    const rows = await readRelationships(deps.db, asset.id, query.direction ?? 'outgoing', viewer, denied);
    return { status: 200, body: rows.map(presentRelationship) };
  });
