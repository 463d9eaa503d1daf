import { listAssets } from '@cairn/contract';
import { httpErrors, implement } from '@cairn/platform';
import { assetPage, deniedProjectIds, listConditions, listingDriver } from '@cairn/projections';
import type { QueryDeps } from '../deps.ts';
import { cursorCodecOf, pageHeaders } from './page-cursor.ts';

const commaList = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v.length > 0);

/** Interface 4.3.1 and 4.3.2: one index-served statement per page (docs/assets.md). */
export const listAssetsRoute = (deps: QueryDeps) =>
  implement(listAssets, async ({ query, context, req }) => {
    const caller = context.caller;
    if (!caller) throw httpErrors.unauthenticated();
    const codec = await cursorCodecOf(deps.db);
    const after = codec.decode(query.cursor);
    const filter = {
      accessScope: query.access_scope,
      collectionId: query.collection_id?.toLowerCase(),
      locked: query.locked,
      metadata: query.metadata,
      ownerId: query.owner_id?.toLowerCase(),
      ownerType: query.owner_type,
      q: query.q,
      recordTypes: commaList(query.record_type),
      tags: commaList(query.tags),
      titles: query.title,
      titlePrefix: query.title_prefix,
    };
    const where = listConditions(filter, caller.isSystemAdmin);
    const conditions = { where, driver: listingDriver(filter) };
    // A substring search or metadata filter costs what the caller makes it cost; the plain
    // listing's keyset walk stays on the main pool, with no gate in its way.
    const costly = query.q !== undefined || query.metadata.length > 0;
    const page = await deps.viewerFacts.withFacts(deps.db, caller, async (facts) => {
      const deniedProjects = await deniedProjectIds(deps, caller, req, facts);
      const request = { viewer: caller, facts, conditions, after, limit: query.limit, deniedProjects, scanCap: deps.queryScanCap ?? 10_000, windowRows: deps.listingWindowRows, walkRows: deps.listingWalkRows };
      return costly ? deps.costlyReads.run(caller.userId, (db) => assetPage(db, request)) : assetPage(deps.db, request);
    });
    return { status: 200, rawJson: page.json, headers: pageHeaders({ limit: query.limit, hasMore: page.hasMore, next: page.next }, codec) };
  });
