import { sql } from 'kysely';
import type { ReadDb } from '../schema.ts';

/** Principal key → flags (docs/assets.md): what a caller gets is the OR over their principals. */
export type GrantMap = Readonly<Record<string, number>>;

/** Who may do what on an asset now, and where it sits in the collection tree. */
export type AssetAccess = {
  readonly ownerType: string;
  readonly ownerId: string;
  /** Ownership and entries of the asset, and the entries of the collections holding it (own and inherited). */
  readonly grants: GrantMap;
  readonly collectionIds: readonly string[];
  /** The collections holding it and all their ancestors: the subtrees it is in. */
  readonly within: ReadonlySet<string>;
};

export type CollectionAccess = {
  /** Owner, own entries and what flows down from its ancestors: who may see the collection. */
  readonly grants: GrantMap;
  /** Itself and its ancestors. */
  readonly within: ReadonlySet<string>;
};

export type ResourceAccess = {
  readonly assets: ReadonlyMap<string, AssetAccess>;
  readonly collections: ReadonlyMap<string, CollectionAccess>;
};

type AssetRow = { id: string; owner_type: string; owner_id: string; grants: Record<string, number>; collection_ids: string[] };
type CollectionRow = { id: string; grants: Record<string, number>; asset_grants: Record<string, number>; parent_ids: string[] };

/** Merges grant maps: each principal's flags OR-ed. */
export function mergeGrants(maps: readonly GrantMap[]): GrantMap {
  const merged: Record<string, number> = {};
  for (const map of maps) for (const [key, flags] of Object.entries(map)) merged[key] = (merged[key] ?? 0) | flags;
  return merged;
}

/**
 * The grants of these assets and collections as the read models hold them now, for no
 * caller in particular: one read serves every follower of a batch (docs/changes.md). The
 * same maps that myFlags and cairn_effective_flags evaluate in SQL, so a caller's flags
 * here are their flags in the listings. A resource that does not exist is absent.
 */
export async function resourceAccess(db: ReadDb, assetIds: readonly string[], collectionIds: readonly string[]): Promise<ResourceAccess> {
  const assetRows =
    assetIds.length === 0
      ? []
      : (
          await sql<AssetRow>`select a.id, a.owner_type, a.owner_id, cairn_grants_union(a.owner_grants, a.entry_grants) as grants, a.collection_ids
            from assets a where a.id = any(${[...new Set(assetIds)]}::uuid[])`.execute(db)
        ).rows;
  const wanted = new Set([...collectionIds, ...assetRows.flatMap((a) => a.collection_ids)]);
  const collectionRows =
    wanted.size === 0
      ? []
      : (
          await sql<CollectionRow>`select c.id, cairn_grants_union(c.owner_grants, cairn_grants_union(c.entry_grants, c.inherited_grants)) as grants,
              cairn_grants_union(c.entry_grants, c.inherited_grants) as asset_grants, c.parent_ids
            from collections c where c.id = any(${[...wanted]}::uuid[])`.execute(db)
        ).rows;
  const collections = new Map<string, CollectionAccess & { readonly assetGrants: GrantMap }>();
  for (const row of collectionRows) collections.set(row.id, { grants: row.grants, assetGrants: row.asset_grants, within: new Set([...row.parent_ids, row.id]) });
  const assets = new Map<string, AssetAccess>();
  for (const row of assetRows) {
    const holders = row.collection_ids.flatMap((id) => {
      const held = collections.get(id);
      return held ? [held] : [];
    });
    assets.set(row.id, {
      ownerType: row.owner_type,
      ownerId: row.owner_id,
      grants: mergeGrants([row.grants, ...holders.map((h) => h.assetGrants)]),
      collectionIds: row.collection_ids,
      within: new Set(holders.flatMap((h) => [...h.within])),
    });
  }
  return { assets, collections };
}

/** The grants a deleted collection's parent passed down (its own entries and inherited ones), and its chain. */
export async function inheritedFrom(db: ReadDb, parentId: string): Promise<{ grants: GrantMap; within: ReadonlySet<string> } | null> {
  const { rows } = await sql<{ grants: Record<string, number>; parent_ids: string[] }>`
    select cairn_grants_union(c.entry_grants, c.inherited_grants) as grants, c.parent_ids from collections c where c.id = ${parentId}::uuid`.execute(db);
  const row = rows[0];
  return row ? { grants: row.grants, within: new Set([...row.parent_ids, parentId]) } : null;
}

/** What a follower of the feed is judged with: their principals, and whether they are still an active user and a system administrator. */
export type ReaderStanding = { readonly principals: string[]; readonly isActive: boolean; readonly isSystemAdmin: boolean };

/**
 * The standing of several users in one statement (docs/changes.md): read again while their
 * streams are open, so that a deactivated user's stream ends and a demoted administrator
 * stops seeing what only an administrator sees. A user not found is absent.
 */
export async function readerStandings(db: ReadDb, userIds: readonly string[]): Promise<Map<string, ReaderStanding>> {
  if (userIds.length === 0) return new Map();
  const { rows } = await sql<{ id: string; p: string[]; is_active: boolean; is_system_admin: boolean }>`
    select u.id::text as id, cairn_principals(u.id) as p, u.is_active, u.is_system_admin
    from users u where u.id = any(${[...new Set(userIds)]}::uuid[])`.execute(db);
  return new Map(rows.map((r) => [r.id, { principals: r.p, isActive: r.is_active, isSystemAdmin: r.is_system_admin }]));
}
