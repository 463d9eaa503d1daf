import { lackedPermissions, permissionBits } from '@cairn/domain';
import { defaultPageSize, listCollectionAssets } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { collectionAssetsPage } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';
import { cursorCodecOf, pageHeaders } from '../assets/page-cursor.ts';
import { openCollection } from './open-collection.ts';

/** After the collection's LIST gate; keyset-paginated in every ordering (docs/collections.md). */
export const listCollectionAssetsRoute = (deps: QueryDeps) =>
  implement(listCollectionAssets, async ({ params, query, context, req }) => {
    const { caller, collection, facts } = await openCollection(deps, params['id'] ?? '', context.caller, req);
    if (!caller.isSystemAdmin && (collection.effective_flags & permissionBits.LIST) === 0) throw httpErrors.forbidden(lackedPermissions(['LIST'], 'the collection'));
    const ordering = query.ordering ?? '-created_at';
    const codec = await cursorCodecOf(deps.db);
    const key = codec.decodeKey(query.cursor, `collection-assets:${ordering}`, 2);
    const rows = await collectionAssetsPage(deps.db, caller, facts, collection.id, ordering, key ? [key[0] ?? '', key[1] ?? ''] : null, query.limit + 1, { commonSize: query.limit === defaultPageSize });
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    const hasMore = rows.length > query.limit && last !== undefined;
    return {
      status: 200,
      rawJson: `[${page.map((r) => r.json).join(',')}]`,
      headers: {
        ...pageHeaders({ limit: query.limit, hasMore, next: null }, codec),
        ...(hasMore && last ? { 'X-Next-Cursor': codec.encodeKey(`collection-assets:${ordering}`, last.key) } : {}),
      },
    };
  });
