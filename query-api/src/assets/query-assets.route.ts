import { queryAssets } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { AssetQueryError, assetPage, compileAssetQuery, deniedProjectIds } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';
import { cursorCodecOf, pageHeaders } from './page-cursor.ts';

function compiled(where: unknown, seesEveryCollection: boolean) {
  if (where === undefined) throw httpErrors.validation({ where: ['This field is required.'] });
  try {
    return compileAssetQuery(where, { seesEveryCollection });
  } catch (error) {
    if (error instanceof AssetQueryError) throw httpErrors.validation({ [error.path]: [error.message] }, `The query is not valid at ${error.path}: ${error.message}`);
    throw error;
  }
}

/** DECISIONS.md 4 (AssetQueryRequest) in the listing's order and pages (docs/asset-query.md). */
export const queryAssetsRoute = (deps: QueryDeps) =>
  implement(queryAssets, async ({ query, body, context, req }) => {
    const caller = context.caller;
    if (!caller) throw httpErrors.unauthenticated();
    const conditions = compiled(body.where, caller.isSystemAdmin);
    const codec = await cursorCodecOf(deps.db);
    const after = codec.decode(query.cursor);
    const page = await deps.viewerFacts.withFacts(deps.db, caller, async (facts) => {
      const deniedProjects = await deniedProjectIds(deps, caller, req, facts);
      return deps.costlyReads.run(caller.userId, (db) =>
        assetPage(db, { viewer: caller, facts, conditions, after, limit: query.limit, deniedProjects, scanCap: deps.queryScanCap ?? 10_000, windowRows: deps.listingWindowRows, walkRows: deps.listingWalkRows }),
      );
    });
    return {
      status: 200,
      rawJson: page.json,
      headers: {
        ...pageHeaders({ limit: query.limit, hasMore: page.hasMore, next: page.next }, codec),
        ...(page.postFiltered ? { 'X-Post-Filter': 'true' } : {}),
        ...(page.capHit ? { 'X-Scan-Cap-Hit': 'true', 'X-Scan-Scanned': String(page.scanned) } : {}),
      },
    };
  });
