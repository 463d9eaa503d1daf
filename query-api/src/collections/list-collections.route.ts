import { defaultPageSize, listCollections } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { listCollections as readCollections } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';
import { cursorCodecOf, pageHeaders } from '../assets/page-cursor.ts';
import { everyCollection } from './every-collection.ts';

/**
 * Every collection the caller sees (DECISIONS.md 8), or with `limit` or `cursor` one page of
 * them, keyset-paginated like the asset listing: newest first, then id (docs/collections.md).
 */
export const listCollectionsRoute = (deps: QueryDeps) =>
  implement(listCollections, async ({ query, context }) => {
    const caller = context.caller;
    if (!caller) throw httpErrors.unauthenticated();
    const filter = { accessScope: query.access_scope, ownerId: query.owner_id?.toLowerCase(), ownerType: query.owner_type, parentId: query.parent_id?.toLowerCase(), q: query.q };
    // The caller's facts as the asset listing keeps them, checked by the page's statement (docs/assets.md, "The caller's facts, kept").
    if (query.limit === undefined && (query.cursor === undefined || query.cursor === '')) return deps.viewerFacts.withFacts(deps.db, caller, (facts) => everyCollection(deps.db, caller, filter, undefined, facts));
    const limit = query.limit ?? defaultPageSize;
    const codec = await cursorCodecOf(deps.db);
    const key = codec.decodeKey(query.cursor, 'collections', 2);
    const after = key ? { createdAt: key[0] ?? '', id: key[1] ?? '' } : null;
    const rows = await deps.viewerFacts.withFacts(deps.db, caller, (facts) => readCollections(deps.db, caller, filter, after, limit + 1, facts, { commonSize: limit === defaultPageSize }));
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const hasMore = rows.length > limit && last !== undefined;
    return {
      status: 200,
      rawJson: `[${page.map((row) => row.json).join(',')}]`,
      headers: {
        ...pageHeaders({ limit, hasMore, next: null }, codec),
        ...(hasMore && last ? { 'X-Next-Cursor': codec.encodeKey('collections', [last.position, last.id]) } : {}),
      },
    };
  });
