import { allPermissionBits, permissionBits } from '../shared/permissions.ts';
import type { AssetOwner, PermissionEntry, SubjectType } from './events.ts';

const b = permissionBits;

/**
 * Who may do what on an asset is written as principal keys (docs/assets.md). A caller has
 * `*`, `u:<self>`, and one key per group, organization and project they are in; an
 * asset's grants map keys to flags. The read model stores the same keys, so the listing's
 * visibility is an array overlap and this code and the SQL agree by construction.
 */
export const principal = {
  everyone: '*',
  user: (id: string) => `u:${id}`,
  group: (id: string) => `g:${id}`,
  organizationMember: (id: string) => `o:${id}`,
  organizationAdmin: (id: string) => `oa:${id}`,
  projectMember: (id: string) => `p:${id}`,
  projectRole: (id: string, role: 'admin' | 'member' | 'viewer') => `${role === 'admin' ? 'pa' : role === 'member' ? 'pm' : 'pv'}:${id}`,
} as const;

/** Flags an owning project's roles and an owning organization's members get (docs/assets.md). */
export const memberFlags = b.READ_METADATA | b.WRITE_METADATA | b.READ_CONTENT | b.WRITE_CONTENT | b.READ_NOTES | b.WRITE_NOTES | b.LIST;
export const viewerFlags = b.READ_METADATA | b.READ_CONTENT | b.READ_NOTES | b.LIST;

export type Grants = Readonly<Record<string, number>>;

/** DECISIONS.md 2: the owner user, and the admins of the owner project, have every bit. */
export function ownerGrants(owner: AssetOwner): Grants {
  switch (owner.ownerType) {
    case 'user':
      return { [principal.user(owner.ownerId)]: allPermissionBits };
    case 'project':
      return {
        [principal.projectRole(owner.ownerId, 'admin')]: allPermissionBits,
        [principal.projectRole(owner.ownerId, 'member')]: memberFlags,
        [principal.projectRole(owner.ownerId, 'viewer')]: viewerFlags,
      };
    case 'organization':
      return { [principal.organizationAdmin(owner.ownerId)]: allPermissionBits, [principal.organizationMember(owner.ownerId)]: memberFlags };
  }
}

export function subjectPrincipal(subjectType: SubjectType, subjectId: string | null): string {
  switch (subjectType) {
    case 'user':
      return principal.user(subjectId ?? '');
    case 'group':
      return principal.group(subjectId ?? '');
    case 'organization':
      return principal.organizationMember(subjectId ?? '');
    case 'project':
      return principal.projectMember(subjectId ?? '');
    case 'public':
      return principal.everyone;
  }
}

export function entryGrants(entries: readonly PermissionEntry[]): Grants {
  const grants: Record<string, number> = {};
  for (const entry of entries) {
    const key = subjectPrincipal(entry.subjectType, entry.subjectId);
    grants[key] = (grants[key] ?? 0) | entry.flags;
  }
  return grants;
}

/** Who the caller is, as principal keys (read from the read models by the route). */
export type AssetAuthority = {
  readonly principals: readonly string[];
  /** Flags that reach the asset from elsewhere (the collections holding it). */
  readonly inheritedFlags: number;
};

export const noAuthority: AssetAuthority = { principals: [principal.everyone], inheritedFlags: 0 };

/** DECISIONS.md 2: the OR of every grant naming one of the caller's principals; everything for a system administrator. */
export function effectiveFlags(grants: readonly Grants[], authority: AssetAuthority, isSystemAdmin: boolean): number {
  if (isSystemAdmin) return allPermissionBits;
  let flags = authority.inheritedFlags;
  for (const key of authority.principals) for (const g of grants) flags |= g[key] ?? 0;
  return flags;
}

export const accessScopes = ['direct', 'project', 'group', 'organization', 'public', 'collection', 'admin'] as const;
export type AccessScope = (typeof accessScopes)[number];
