import { permissionBits } from '@cairn/domain';
import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';
import { flagsFromCollections, myFlags, principalList, principalsText, viewerCte } from './asset-json.ts';
import { assetJsonOf, documentColumnsSql, documentViewer, type DocumentColumns } from './asset-document.ts';
import { compiledOnce, namedStatement, preparedStatement } from '../prepared-statements.ts';

export type AssetViewer = { readonly userId: string; readonly isSystemAdmin: boolean };

/** What a route needs to know of one asset and the caller, read in one statement. */
export type AssetStanding = {
  /** The caller's principals (docs/assets.md), whether or not the asset exists. */
  readonly principals: string[];
  /** Null when the asset does not exist, or (unless read `evenHidden`) the caller may not read it. */
  readonly asset: {
    readonly id: string;
    readonly ownerType: string;
    readonly ownerId: string;
    /** Owned by a project whose geographic restriction is on: read here, so that every other asset needs no second statement for its owner. */
    readonly ownerRestricted: boolean;
    readonly isLocked: boolean;
    /** The caller's effective flags. */
    readonly flags: number;
    /** The part of them that comes from the collections holding the asset. */
    readonly inheritedFlags: number;
    /** The asset as the caller sees it, as JSON text. */
    readonly json: string;
  } | null;
};

type StandingRow = DocumentColumns & { principals: string; id: string | null; owner_type: string; owner_id: string; owner_restricted: boolean; is_locked: boolean; flags: number; inherited: number; starred: boolean };

/**
 * One statement for the caller's principals and the asset. Unless `evenHidden`, an asset the
 * caller may not read comes back exactly as a missing one (no row of it): the statement
 * stops at its flags and builds no JSON, so a hidden id costs what a random one costs and
 * its 404 is not slower (issue 23, docs/assets.md "Disclosure").
 */
function standingQuery(assetId: string | null, viewer: AssetViewer, evenHidden: boolean) {
  const admin = sql`${viewer.isSystemAdmin}::boolean`;
  const readable = evenHidden || viewer.isSystemAdmin ? sql`true` : sql`(f.flags & ${permissionBits.READ_METADATA}) <> 0`;
  return sql<StandingRow>`${preparedStatement}
    with ${viewerCte(viewer.userId)}
    select ${principalsText(sql`me.p`)} as principals, a.id, a.owner_type, a.owner_id, a.is_locked, a.my_flags as flags, a.my_inherited as inherited,
      ${documentColumnsSql(sql`a.id is not null`, admin, sql`a.my_inherited`)},
      a.id is not null and exists (select 1 from asset_stars s where s.user_id = ${viewer.userId}::uuid and s.asset_id = a.id) as starred,
      case when a.owner_type = 'project' then exists (select 1 from projects p where p.id = a.owner_id and p.geobound_enabled) else false end as owner_restricted
    from me left join lateral (
      select a.*, f.flags as my_flags, i.inherited as my_inherited
      from assets a,
        -- The collections' flags once (offset 0 keeps PostgreSQL from copying the call into every use of it).
        lateral (select ${flagsFromCollections} as inherited offset 0) i,
        lateral (select ${myFlags(admin, sql`i.inherited`)} as flags) f
      where a.id = ${assetId}::uuid and ${readable}) a on true`;
}

const standingStatements = new Map<string, ReturnType<typeof compiledStanding>>();
const compiledStanding = (db: ReadDb, isSystemAdmin: boolean, evenHidden: boolean) =>
  compiledOnce(db, ['assetId', 'userId'], (v) => standingQuery(v.assetId, { userId: v.userId, isSystemAdmin }, evenHidden));

/** The standing statement, compiled once for each of its four shapes. */
function standingStatement(db: ReadDb, assetId: string | null, viewer: AssetViewer, evenHidden: boolean) {
  const shape = `${viewer.isSystemAdmin} ${evenHidden}`;
  let statement = standingStatements.get(shape);
  if (!statement) {
    statement = compiledStanding(db, viewer.isSystemAdmin, evenHidden);
    standingStatements.set(shape, statement);
  }
  return statement({ assetId, userId: viewer.userId });
}

function standingOf(rows: readonly StandingRow[], isSystemAdmin: boolean): AssetStanding {
  const row = rows[0];
  if (!row) throw new Error('the standing query returned no row');
  const principals = principalList(row.principals);
  return {
    principals,
    asset:
      row.id === null
        ? null
        : {
            id: row.id,
            ownerType: row.owner_type,
            ownerId: row.owner_id,
            ownerRestricted: row.owner_restricted,
            isLocked: row.is_locked,
            flags: row.flags,
            inheritedFlags: row.inherited,
            json: assetJsonOf(row, row.starred, documentViewer(principals, isSystemAdmin)),
          },
  };
}

/** The caller's principals, and the asset as the caller sees it: visible or nothing, unless `evenHidden` (a write's answer). */
export async function assetStanding(db: ReadDb, assetId: string | null, viewer: AssetViewer, options: { evenHidden?: boolean } = {}): Promise<AssetStanding> {
  return standingOf((await db.executeQuery(standingStatement(db, assetId, viewer, options.evenHidden ?? false))).rows, viewer.isSystemAdmin);
}

/** The same read as a statement to run elsewhere (after an append, in its transaction), and what its rows say. */
export function assetStandingRead(db: ReadDb, assetId: string, viewer: AssetViewer) {
  return {
    statement: namedStatement(standingStatement(db, assetId, viewer, true)),
    standing: (rows: readonly Record<string, unknown>[]) => standingOf(rows as StandingRow[], viewer.isSystemAdmin),
  };
}

/** The caller's principals alone (docs/assets.md). */
export async function principalsOf(db: ReadDb, userId: string): Promise<string[]> {
  const { rows } = await sql<{ p: string }>`select ${principalsText(sql`cairn_principals(${userId}::uuid)`)} as p`.execute(db);
  return principalList(rows[0]?.p);
}
